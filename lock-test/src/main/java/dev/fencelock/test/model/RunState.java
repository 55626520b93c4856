package dev.fencelock.test.model;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.test.model.LockModel.Acquisition;
import dev.fencelock.test.model.LockModel.State;
import dev.fencelock.test.model.StoreView.StoredKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link ModelRun} tracks (the model, the holds and waiting acquires its clients handed
 * out, the steps performed so far) and how it waits and fails.
 */
abstract class RunState {

    /** One hold a client handed out. */
    static final class Hold {

        final Acquisition acquisition;

        final int client;

        final LockLease lease;

        boolean released;

        Hold(Acquisition acquisition, int client, LockLease lease) {
            this.acquisition = acquisition;
            this.client = client;
            this.lease = lease;
        }
    }

    /** One acquire call that had to wait; its future completes when the key comes first, or fails. */
    static final class Attempt {

        final Acquisition acquisition;

        final int client;

        final CompletableFuture<LockLease> future;

        boolean settled;

        Attempt(Acquisition acquisition, int client, CompletableFuture<LockLease> future) {
            this.acquisition = acquisition;
            this.client = client;
            this.future = future;
        }
    }

    final LockSystem system;

    final LockSystem.Run run;

    final List<LockClient> clients;

    final LockModel model;

    final ValidityMonitor monitor = new ValidityMonitor();

    final RunStats stats;

    final List<Hold> holds = new ArrayList<>();

    final List<Attempt> attempts = new ArrayList<>();

    final boolean[] answersLost = new boolean[StepGenerator.CLIENTS];

    final List<String> trace = new ArrayList<>();

    RunState(LockSystem system, LockSystem.Run run, RunStats stats) {
        this.system = system;
        this.run = run;
        this.clients = run.clients();
        this.stats = stats;
        this.model = new LockModel(IntStream.range(0, StepGenerator.RESOURCES)
                .mapToObj(r -> "r" + r)
                .toList());
    }

    void hold(int c, Acquisition acquisition, LockLease lease, boolean watch) {
        String wrongToken = this.model.granted(acquisition, lease.fencingToken());
        if (wrongToken != null) {
            fail(wrongToken);
        }
        if (acquisition.requestId == null) {
            acquisition.requestId = lease.requestId();
        } else if (!acquisition.requestId.equals(lease.requestId())) {
            fail("c" + (c + 1) + " was handed request id " + lease.requestId() + " for " + acquisition);
        }
        this.holds.add(new Hold(acquisition, c, lease));
        if (watch) {
            this.monitor.watch(acquisition, lease);
        }
    }

    List<Hold> openHolds(int c) {
        return this.holds.stream().filter(h -> h.client == c && !h.released).toList();
    }

    List<Attempt> pendingAttempts(int c) {
        return this.attempts.stream()
                .filter(a -> a.client == c && !a.settled && a.acquisition.state == State.WAITING)
                .toList();
    }

    static @Nullable StoredKey keyOf(Acquisition acquisition, Map<String, List<StoredKey>> locks) {
        for (StoredKey key : locks.getOrDefault(acquisition.resource, List.of())) {
            if (key.requestId().equals(acquisition.requestId)) {
                return key;
            }
        }
        return null;
    }

    Throwable awaitFailure(CompletableFuture<LockLease> future, String what) {
        try {
            LockLease lease = future.get(timeout().toNanos(), TimeUnit.NANOSECONDS);
            throw fail(what + " should fail, but was granted " + lease);
        } catch (ExecutionException ex) {
            return ex.getCause();
        } catch (TimeoutException ex) {
            throw fail(what + " should fail at once, but waited " + timeout());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    <T> T get(CompletableFuture<T> future, String what) {
        try {
            return future.get(timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException ex) {
            throw fail(what + " did not complete: " + ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    static String outcomeOf(CompletableFuture<LockLease> future) {
        if (future.isCancelled()) {
            return "cancelled";
        }
        try {
            return "with " + future.getNow(null);
        } catch (RuntimeException ex) {
            return "with " + ((ex.getCause() != null) ? ex.getCause() : ex);
        }
    }

    /** Waits, bounded, until {@code divergence} reports nothing; fails with its last report. */
    void awaitUntil(String what, Supplier<@Nullable String> divergence) {
        AtomicReference<String> last = new AtomicReference<>();
        try {
            Awaitility.await(what)
                    .atMost(timeout())
                    .pollInSameThread()
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        String difference = divergence.get();
                        last.set(difference);
                        return difference == null;
                    });
        } catch (ConditionTimeoutException ex) {
            fail("still not reached after " + timeout() + ": " + what + "; " + last.get());
        }
    }

    void failIfMonitorSawOverlap() {
        String violation = this.monitor.violation();
        if (violation != null) {
            fail(violation);
        }
    }

    Duration timeout() {
        return this.system.settleTimeout();
    }

    AssertionError fail(String what) {
        StringBuilder message = new StringBuilder(what)
                .append(System.lineSeparator())
                .append("  at step ")
                .append(this.trace.size())
                .append(" of the script run so far:")
                .append(System.lineSeparator());
        this.trace.forEach(line -> message.append("    ").append(line).append(System.lineSeparator()));
        message.append("  model: ").append(this.model.all()).append(System.lineSeparator());
        try {
            message.append("  store: ").append(this.run.store().locks());
            List<String> history = this.run.store().history();
            if (!history.isEmpty()) {
                message.append(System.lineSeparator()).append("  history of the store:");
                history.forEach(event ->
                        message.append(System.lineSeparator()).append("    ").append(event));
            }
        } catch (RuntimeException unreadable) {
            message.append("  store: unreadable (").append(unreadable).append(')');
        }
        throw new ModelRun.ModelViolation(message.toString(), this.trace);
    }
}
