package dev.fencelock.test.model;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.test.model.LockModel.Acquisition;
import dev.fencelock.test.model.LockModel.State;
import dev.fencelock.test.model.StoreView.StoredKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Runs one script against a {@link LockSystem} and the {@link LockModel} side by side. After every
 * step it waits, bounded, until the clients and the store reach the state the model predicts
 * (hand-overs, deletes and detected losses are asynchronous), and then checks:
 *
 * <ul>
 *   <li>the store's keys of each resource, oldest first, are the model's holder and waiters, in
 *       order, of the right clients, the holder's create revision its token;
 *   <li>every client whose lease says {@code isValid()} is the model's holder and owns the oldest
 *       key, so at most one per resource; {@code heldCount()} agrees;
 *   <li>every grant's token is larger than every earlier one of its resource, and a re-entry or a
 *       retry that joined a waiting acquisition gets the same token (a retry never makes a key);
 *   <li>no two leases of a resource were ever valid at one instant ({@link ValidityMonitor});
 *   <li>once every client closed, no key is left (locks and abandon markers).
 * </ul>
 *
 * A loss nothing caused fails the run. Only an expiry step, or a cluster fault, may take a
 * client's session lease, and then whole: all its locks lost and all its waiters failed.
 */
final class ModelRun extends RunChecks {

    private static final AtomicLong RUNS = new AtomicLong();

    private ModelRun(LockSystem system, LockSystem.Run run, RunStats stats) {
        super(system, run, stats);
    }

    /** Runs {@code script}; throws an {@link AssertionError} that names the step and what went wrong. */
    static void run(LockSystem system, List<Step> script, RunStats stats) {
        stats.script();
        try (LockSystem.Run run = system.start(Long.toString(RUNS.incrementAndGet()))) {
            ModelRun modelRun = new ModelRun(system, run, stats);
            try {
                modelRun.execute(script);
            } finally {
                modelRun.monitor.close();
                stats.monitorSamples(modelRun.monitor.samples());
            }
        }
    }

    private void execute(List<Step> script) {
        for (Step step : script) {
            this.trace.add(step.toString());
            Step performed = perform(step);
            if (performed == null) {
                this.trace.set(this.trace.size() - 1, step + "   (skipped: nothing to act on)");
                this.stats.skipped();
                continue;
            }
            this.trace.set(this.trace.size() - 1, performed.toString());
            settle(step.kind().isClusterFault() ? System.nanoTime() : 0);
            this.stats.executed(step.kind());
        }
        finish();
    }

    /**
     * Performs {@code step}; returns it as performed (a release, renew or cancel by a client with
     * nothing on the step's resource acts on its newest lease or waiter of the other), or {@code
     * null} if the client had nothing to act on.
     */
    private @Nullable Step perform(Step step) {
        int c = step.client();
        Step performed = switch (step.kind()) {
            case ACQUIRE -> acquire(step, null);
            case ACQUIRE_WITH_ID -> acquire(step, step.requestId());
            case RENEW -> renew(step);
            case RELEASE -> release(step, false);
            case RELEASE_ASYNC -> release(step, true);
            case CANCEL -> cancel(step);
            case FORCE_RELEASE -> forceRelease(step);
            case EXPIRE -> expire(step);
            case DROP_TXN_RESPONSE -> {
                this.run.loseWriteAnswers(c, true);
                this.answersLost[c] = true;
                yield step;
            }
            case PAUSE_LEADER -> {
                this.run.pauseLeader(step.pause());
                yield step;
            }
            case RESTART_MEMBER -> {
                this.run.restartMember(step.argument());
                yield step;
            }
        };
        if (performed != null && !performed.kind().isFault() && this.answersLost[performed.client()]) {
            // A lost answer is armed for the client's next command only: the client that sent it, which is not
            // the step's own when the step acted on another client's lease or waiter.
            this.run.loseWriteAnswers(performed.client(), false);
            this.answersLost[performed.client()] = false;
        }
        return performed;
    }

    private Step acquire(Step step, @Nullable String requestId) {
        int c = step.client();
        String resource = step.resourceName();
        LockRequest.Builder request = LockRequest.builder(resource).waitTimeout(ModelClients.WAIT);
        if (requestId != null) {
            request.requestId(requestId);
        }
        // Read first: a marker appears no later than its key goes, and every step waits for that.
        boolean abandoned = requestId != null
                && this.run.store().abandoned().contains("c" + (c + 1) + ":" + resource + "/" + requestId);
        CompletableFuture<LockLease> future = this.clients.get(c).acquireAsync(request.build());
        if (abandoned && refusedAsAbandoned(future, resource, requestId)) {
            this.trace.add(
                    "   (refused: " + requestId + " was abandoned with an unknown outcome, and its marker lives)");
            return step;
        }
        LockModel.Acquire expected = this.model.acquire(c, resource, requestId);
        Acquisition acquisition = expected.acquisition();
        switch (expected.outcome()) {
            case GRANTED, REENTERED -> {
                LockLease lease = grantedUnlessLostToStall(future, acquisition, c);
                if (lease != null) {
                    hold(c, acquisition, lease, true);
                }
            }
            case QUEUED, JOINED -> {
                this.attempts.add(new Attempt(acquisition, c, future));
                // Watched from the instant it is granted, not from when the next check looks.
                future.thenAccept(lease -> this.monitor.watch(acquisition, lease));
            }
            case REFUSED_IN_USE -> {
                Throwable failure = awaitFailure(future, "the acquire whose id " + acquisition + " uses");
                String message = String.valueOf(failure.getMessage());
                // This client's earlier attempt with the id, refused as in use with its answer lost, writes its
                // marker when its retry grace ends: that may be after the read above, and then it answers first.
                boolean abandonedSince = message.contains("abandoned")
                        && this.run.store().abandoned().contains("c" + (c + 1) + ":" + resource + "/" + requestId);
                if (!(failure instanceof LockException) || !(message.contains("in use") || abandonedSince)) {
                    fail("an acquire with the id of " + acquisition + " should be refused as in use, but failed with "
                            + failure);
                }
                if (abandonedSince) {
                    this.trace.add("   (refused: " + requestId + " was abandoned by this client since the step began)");
                }
            }
        }
        return step;
    }

    /**
     * The lease of an acquire the model grants at once. On a loaded machine the client's session
     * lease can be lost to a stall while the acquire runs, with no fault injected; the acquire may
     * then fail with the store unavailable. That counts only if the client lost the session whole,
     * as {@link #reconcileStalls()} requires, and the new acquisition with it; else it fails the run.
     */
    private @Nullable LockLease grantedUnlessLostToStall(
            CompletableFuture<LockLease> future, Acquisition acquisition, int c) {
        try {
            return future.get(timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof LockBackendUnavailableException
                    && reconcileStalls()
                    && acquisition.state == LockModel.State.LOST) {
                this.trace.add("   (failed: c" + (c + 1) + " lost its session lease to a stall meanwhile)");
                return null;
            }
            throw fail("the acquire of " + acquisition + " should be granted, but failed: " + ex.getCause());
        } catch (TimeoutException ex) {
            throw fail("the acquire of " + acquisition + " should be granted at once, but waited " + timeout());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /**
     * An earlier acquisition with this id was cancelled while its put's outcome was unknown, and
     * abandoned: until its marker expires, the id may be refused. Waits until the acquire either
     * failed or put its key, and says whether it was refused.
     */
    private boolean refusedAsAbandoned(CompletableFuture<LockLease> future, String resource, String requestId) {
        awaitUntil("the acquire of an abandoned id to be refused or to put its key", () -> {
            if (future.isDone()) {
                return null;
            }
            for (StoredKey key : this.run.store().locks().getOrDefault(resource, List.of())) {
                if (key.requestId().equals(requestId)) {
                    return null;
                }
            }
            return "neither refused nor put";
        });
        if (!future.isCompletedExceptionally()) {
            return false;
        }
        Throwable failure = awaitFailure(future, "the acquire of abandoned id " + requestId);
        if (!(failure instanceof LockException)
                || !String.valueOf(failure.getMessage()).contains("abandoned")) {
            fail("an acquire with abandoned id " + requestId + " of " + resource + " failed with " + failure);
        }
        return true;
    }

    private @Nullable Step renew(Step step) {
        Hold hold = holdFor(step);
        if (hold == null) {
            return null;
        }
        int c = hold.client;
        Acquisition acquisition = hold.acquisition;
        try {
            hold.lease.renew();
            if (acquisition.state != State.HELD) {
                fail("renew succeeded, but the model says " + acquisition);
            }
        } catch (LockLostException lost) {
            if (acquisition.state == State.HELD) {
                fail("renew reported " + acquisition + " lost: " + lost.getMessage());
            }
        } catch (LockBackendUnavailableException unavailable) {
            // Renew's check is a read: with its answer lost it cannot tell, and says so.
            if (!this.answersLost[c]) {
                fail("renew of " + acquisition + " failed: " + unavailable);
            }
        }
        return step.as(c, acquisition.resource);
    }

    private @Nullable Step release(Step step, boolean async) {
        Hold hold = holdFor(step);
        if (hold == null) {
            return null;
        }
        boolean expected = this.model.release(hold.acquisition);
        boolean reported = async ? get(hold.lease.releaseAsync(), "releaseAsync") : hold.lease.release();
        hold.released = true;
        if (reported != expected) {
            fail((async ? "releaseAsync" : "release") + " reported " + reported + " for " + hold.acquisition);
        }
        return step.as(hold.client, hold.acquisition.resource);
    }

    private @Nullable Step cancel(Step step) {
        Attempt attempt = pick(
                this.attempts.stream()
                        .filter(a -> !a.settled && a.acquisition.state == State.WAITING)
                        .toList(),
                a -> a.client,
                a -> a.acquisition,
                step);
        if (attempt == null) {
            return null;
        }
        if (!attempt.future.cancel(true)) {
            fail("the waiting acquire of " + attempt.acquisition + " could not be cancelled: it already ended "
                    + outcomeOf(attempt.future));
        }
        attempt.settled = true;
        this.model.cancel(attempt.acquisition);
        return step.as(attempt.client, attempt.acquisition.resource);
    }

    private Step forceRelease(Step step) {
        int c = step.client();
        String resource = step.resourceName();
        Acquisition holder = this.model.holder(resource);
        if (holder != null) {
            // Before the call: the next holder may be granted before the call returns.
            this.monitor.exempt(holder, true);
        }
        boolean removed;
        boolean outcomeKnown = true;
        try {
            Optional<QueueEntry> entry = this.clients
                    .get(c)
                    .administration()
                    .orElseThrow()
                    .forceRelease(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                    .get(timeout().toNanos(), TimeUnit.NANOSECONDS);
            removed = entry.isPresent();
            if (holder != null
                    && entry.isPresent()
                    && (!entry.get().requestId().equals(holder.requestId)
                            || entry.get().fencingToken() != holder.token)) {
                fail("force-release removed " + entry.get() + ", not the holder " + holder);
            }
        } catch (ExecutionException | TimeoutException ex) {
            if (!this.answersLost[c] || holder == null) {
                fail("force-release of " + resource + " failed: " + ex);
            }
            // Its delete's answer was lost: whether etcd applied it shows in the store.
            removed = keyOf(holder, this.run.store().locks()) == null;
            outcomeKnown = false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        if (outcomeKnown && removed != (holder != null)) {
            fail("force-release of " + resource + " removed " + (removed ? "a key" : "nothing") + ", but the holder is "
                    + holder);
        }
        if (holder != null && removed) {
            this.model.forceRelease(resource);
        } else if (holder != null) {
            this.monitor.exempt(holder, false);
        }
        return step;
    }

    private @Nullable Step expire(Step step) {
        int c = step.client();
        List<Acquisition> live = this.model.live(c);
        if (live.isEmpty()) {
            return null;
        }
        this.run.keepAlives(c, false);
        try {
            awaitUntil("the session lease of c" + (c + 1) + " to run out", () -> {
                for (Hold hold : openHolds(c)) {
                    if (hold.acquisition.state == State.HELD && hold.lease.isValid()) {
                        return hold.acquisition + " is still valid";
                    }
                }
                for (Attempt attempt : pendingAttempts(c)) {
                    if (!attempt.future.isDone()) {
                        return "the acquire of " + attempt.acquisition + " is still waiting";
                    }
                }
                Map<String, List<StoredKey>> locks = this.run.store().locks();
                for (Acquisition acquisition : live) {
                    if (keyOf(acquisition, locks) != null) {
                        return "the key of " + acquisition + " is still in the store";
                    }
                }
                return null;
            });
        } finally {
            this.run.keepAlives(c, true);
        }
        this.model.sessionsLost(Set.of(c), "expiry");
        return step;
    }

    /**
     * The hold a release or renew of {@code step} acts on: its client's newest open hold of its
     * resource, else of the other resource; else the resource's holder's; else anyone's. Random
     * scripts mostly name clients that hold nothing, and would otherwise skip most releases and
     * let every queue grow.
     */
    private @Nullable Hold holdFor(Step step) {
        return pick(this.holds.stream().filter(h -> !h.released).toList(), h -> h.client, h -> h.acquisition, step);
    }

    /** The newest candidate of the step's client and resource, falling back as {@link #holdFor} says. */
    private <T> @Nullable T pick(
            List<T> candidates, ToIntFunction<T> clientOf, Function<T, Acquisition> acquisitionOf, Step step) {
        String resource = step.resourceName();
        Acquisition holder = this.model.holder(resource);
        int holderClient = (holder != null) ? holder.client : -1;
        List<Predicate<T>> preferences = List.of(
                t -> clientOf.applyAsInt(t) == step.client()
                        && acquisitionOf.apply(t).resource.equals(resource),
                t -> clientOf.applyAsInt(t) == step.client(),
                t -> clientOf.applyAsInt(t) == holderClient
                        && acquisitionOf.apply(t).resource.equals(resource),
                t -> acquisitionOf.apply(t).resource.equals(resource),
                t -> true);
        for (Predicate<T> preferred : preferences) {
            T newest = null;
            for (T candidate : candidates) {
                if (preferred.test(candidate)) {
                    newest = candidate;
                }
            }
            if (newest != null) {
                return newest;
            }
        }
        return null;
    }

    /** A run that broke the model: what, where, and the state of both sides. */
    static final class ModelViolation extends AssertionError {

        private static final long serialVersionUID = 1L;

        private final transient List<String> performed;

        ModelViolation(String message, List<String> performed) {
            super(message);
            this.performed = List.copyOf(performed);
        }

        /** The steps as they were performed, up to the one that failed. */
        List<String> performed() {
            return this.performed;
        }
    }
}
