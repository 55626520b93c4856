package dev.fencelock.interceptor;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Acquires the locks of one call without blocking a thread: one lock, or the several of {@code
 * keys} one after another, as {@link LockClient#acquireAll} does for a blocking caller: sorted by
 * resource (the caller passes them so), under one deadline (each tried once when the wait timeout is
 * zero), all or nothing.
 *
 * <p>Cancelling the returned future abandons the acquisition: the attempt under way is cancelled
 * and the locks already taken are released, also those granted while the cancellation arrived.
 */
final class CallLocksAcquisition {

    private final LockClient client;

    /** One request per lock, in resource order, given the wait timeout of that step. */
    private final List<Function<Duration, LockRequest>> requests;

    private final List<String> resources;

    private final Duration wait;

    private final long deadline;

    /** Only the chain of steps touches it, one step after another. */
    private final List<LockLease> taken = new ArrayList<>();

    private final CompletableFuture<CallLocks> result = new CompletableFuture<>();

    private volatile @Nullable CompletableFuture<LockLease> current;

    private CallLocksAcquisition(
            LockClient client, List<String> resources, List<Function<Duration, LockRequest>> requests, Duration wait) {
        this.client = client;
        this.resources = resources;
        this.requests = requests;
        this.wait = wait;
        this.deadline = System.nanoTime() + wait.toNanos();
    }

    /**
     * @param resources the resources, sorted, for messages
     * @param requests the request of each resource, given the wait timeout of its step
     * @param wait the wait timeout of the whole call
     */
    static CompletableFuture<CallLocks> start(
            LockClient client, List<String> resources, List<Function<Duration, LockRequest>> requests, Duration wait) {
        CallLocksAcquisition acquisition = new CallLocksAcquisition(client, resources, requests, wait);
        acquisition.result.whenComplete((locks, failure) -> {
            CompletableFuture<LockLease> step = acquisition.current;
            if (acquisition.result.isCancelled() && step != null) {
                step.cancel(false);
            }
        });
        acquisition.next();
        return acquisition.result;
    }

    private void next() {
        if (this.result.isDone()) {
            giveBack();
            return;
        }
        int index = this.taken.size();
        if (index == this.requests.size()) {
            CallLocks locks = (index == 1) ? CallLocks.of(this.taken.get(0)) : CallLocks.of(this.taken);
            if (!this.result.complete(locks)) {
                giveBack(); // cancelled meanwhile
            }
            return;
        }
        Duration stepWait = this.wait;
        if (index > 0 && !this.wait.isZero()) {
            long remaining = this.deadline - System.nanoTime();
            if (remaining <= 0) {
                giveBack();
                this.result.completeExceptionally(new LockAcquisitionTimeoutException("The wait time of locks '"
                        + String.join("', '", this.resources) + "' ran out before lock '" + this.resources.get(index)
                        + "', the " + (index + 1) + ". of " + this.resources.size()
                        + "; the locks taken were released"));
                return;
            }
            stepWait = Duration.ofNanos(remaining);
        }
        CompletableFuture<LockLease> step;
        try {
            step = this.client.acquireAsync(this.requests.get(index).apply(stepWait));
        } catch (RuntimeException ex) {
            step = CompletableFuture.failedFuture(ex);
        }
        this.current = step;
        if (this.result.isCancelled()) {
            step.cancel(false);
        }
        step.whenComplete((lease, failure) -> {
            if (failure != null) {
                giveBack();
                this.result.completeExceptionally(unwrap(failure));
                return;
            }
            this.taken.add(lease);
            next();
        });
    }

    /** Releases what was taken, the last taken first; a failure is logged by {@link CallLocks}. */
    private void giveBack() {
        if (!this.taken.isEmpty()) {
            CallLocks.of(List.copyOf(this.taken)).releaseAsync();
            this.taken.clear();
        }
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
