package dev.fencelock.etcd.model;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.etcd.model.LockModel.Acquisition;
import dev.fencelock.etcd.model.LockModel.State;
import dev.fencelock.etcd.model.StoreView.StoredKey;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
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
final class ModelRun {

    private static final AtomicLong RUNS = new AtomicLong();

    /** One hold a client handed out. */
    private static final class Hold {

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
    private static final class Attempt {

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

    private final LockSystem system;

    private final LockSystem.Run run;

    private final List<LockClient> clients;

    private final LockModel model;

    private final ValidityMonitor monitor = new ValidityMonitor();

    private final RunStats stats;

    private final List<Hold> holds = new ArrayList<>();

    private final List<Attempt> attempts = new ArrayList<>();

    private final boolean[] answersLost = new boolean[StepGenerator.CLIENTS];

    private final List<String> trace = new ArrayList<>();

    private ModelRun(LockSystem system, LockSystem.Run run, RunStats stats) {
        this.system = system;
        this.run = run;
        this.clients = run.clients();
        this.stats = stats;
        this.model = new LockModel(IntStream.range(0, StepGenerator.RESOURCES)
                .mapToObj(r -> "r" + r)
                .toList());
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
                this.run.loseTxnAnswers(c, true);
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
        if (!step.kind().isFault() && this.answersLost[c]) {
            // A lost answer is armed for the client's next command only.
            this.run.loseTxnAnswers(c, false);
            this.answersLost[c] = false;
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
            case GRANTED, REENTERED -> hold(c, acquisition, awaitLease(future, acquisition), true);
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

    /** After every step: wait until clients and store reach the model's state, then check it. */
    private void settle(long faultEnded) {
        if (faultEnded != 0) {
            reconcileSessions(faultEnded);
        }
        try {
            awaitUntil("the clients and the store to reach the model's state", this::divergence);
            checkOwners();
        } catch (AssertionError diverged) {
            if (!reconcileStalls()) {
                throw diverged;
            }
            awaitUntil("the clients and the store to reach the model's state", this::divergence);
            checkOwners();
        }
        failIfMonitorSawOverlap();
    }

    /**
     * A session lease can also be lost with no fault injected: on a loaded machine its keep-alives
     * may go unconfirmed for longer than its validity (a stall). The client must then have lost
     * that session whole, as after a fault, and the model follows; anything less stays a failure.
     */
    private boolean reconcileStalls() {
        Set<Integer> lost = new HashSet<>();
        for (int c = 0; c < this.clients.size(); c++) {
            List<Hold> lostHolds = openHolds(c).stream()
                    .filter(hold -> hold.acquisition.state == State.HELD && !hold.lease.isValid())
                    .toList();
            boolean somethingEnded =
                    !lostHolds.isEmpty() || pendingAttempts(c).stream().anyMatch(attempt -> attempt.future.isDone());
            // The client must say why: its keep-alives went unconfirmed past the session's local deadline.
            boolean byDeadline = lostHolds.stream().allMatch(ModelRun::lostToLocalDeadline);
            if (!this.model.live(c).isEmpty() && somethingEnded && byDeadline && lostWhole(c)) {
                lost.add(c);
                this.stats.sessionLostToStall();
                this.trace.add("   (c" + (c + 1) + " lost its session lease to a stall: no fault was injected)");
            }
        }
        this.model.sessionsLost(lost, "stall");
        return !lost.isEmpty();
    }

    /**
     * After a cluster fault each client either kept its session lease (a keep-alive sent after the
     * fault was confirmed, and nothing of it was lost) or lost it whole; the model follows.
     */
    private void reconcileSessions(long faultEnded) {
        awaitUntil("every client to keep its session lease or lose it whole", () -> {
            for (int c = 0; c < this.clients.size(); c++) {
                if (!this.model.live(c).isEmpty() && !kept(c, faultEnded) && !lostWhole(c)) {
                    return "c" + (c + 1) + " neither kept its session nor lost all of it";
                }
            }
            return null;
        });
        Set<Integer> lost = new HashSet<>();
        for (int c = 0; c < this.clients.size(); c++) {
            if (!this.model.live(c).isEmpty() && !kept(c, faultEnded)) {
                lost.add(c);
                this.stats.sessionLostToFault();
                this.trace.add("   (c" + (c + 1) + " lost its session lease to the fault)");
            }
        }
        this.model.sessionsLost(lost, "fault");
    }

    private static boolean lostToLocalDeadline(Hold hold) {
        CompletableFuture<String> why = new CompletableFuture<>();
        // Already lost, so the listener is called at once, on the client's callback executor.
        hold.lease.onLost(lost -> why.complete(String.valueOf(lost.getMessage())));
        try {
            return why.get(10, TimeUnit.SECONDS).contains("before its local deadline");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException ex) {
            return false;
        }
    }

    private boolean kept(int c, long faultEnded) {
        Map<Long, Long> deadlines = this.run.sessionDeadlines(c);
        long validity = this.system.sessionValidity().toNanos();
        if (deadlines.isEmpty() || deadlines.values().stream().anyMatch(until -> until - faultEnded <= validity)) {
            return false;
        }
        for (Hold hold : openHolds(c)) {
            if (hold.acquisition.state == State.HELD && !hold.lease.isValid()) {
                return false;
            }
        }
        for (Attempt attempt : pendingAttempts(c)) {
            // A waiter may be granted because another client lost its session in the same fault;
            // whether that grant was due is checked against the model once it knows of the loss.
            if (attempt.future.isDone() && !grantedValid(attempt)) {
                return false;
            }
        }
        Map<String, List<StoredKey>> locks = this.run.store().locks();
        for (Acquisition acquisition : this.model.live(c)) {
            StoredKey key = keyOf(acquisition, locks);
            if (key == null || !deadlines.containsKey(key.leaseId())) {
                return false;
            }
        }
        return true;
    }

    private boolean lostWhole(int c) {
        for (Hold hold : openHolds(c)) {
            if (hold.acquisition.state == State.HELD && hold.lease.isValid()) {
                return false;
            }
        }
        for (Attempt attempt : pendingAttempts(c)) {
            if (!attempt.future.isDone() || grantedValid(attempt)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the attempt was granted a lease that is valid now. */
    private static boolean grantedValid(Attempt attempt) {
        return attempt.future.isDone()
                && !attempt.future.isCompletedExceptionally()
                && attempt.future.join().isValid();
    }

    /** What still differs from the model, or {@code null}; fails at once on what no waiting can mend. */
    private @Nullable String divergence() {
        failIfMonitorSawOverlap();
        for (Attempt attempt : this.attempts) {
            if (attempt.settled) {
                continue;
            }
            Acquisition acquisition = attempt.acquisition;
            if (attempt.future.isDone()) {
                if (!attempt.future.isCompletedExceptionally()) {
                    LockLease lease = attempt.future.join();
                    if (acquisition.state == State.WITHDRAWN && !lease.isValid()) {
                        // Its session expired as its predecessor's key went: granted a lease already lost,
                        // where it might as well have failed. Harmless while it is never valid.
                        attempt.settled = true;
                        continue;
                    }
                    if (acquisition.state != State.HELD) {
                        fail("c" + (attempt.client + 1) + " was granted " + acquisition.resource + " (token "
                                + lease.fencingToken() + "), but the model says " + acquisition);
                    }
                    hold(attempt.client, acquisition, lease, false);
                } else if (acquisition.state != State.WITHDRAWN) {
                    fail("the waiting acquire of " + acquisition + " ended " + outcomeOf(attempt.future));
                }
                attempt.settled = true;
            } else if (acquisition.state == State.HELD) {
                return "waiting for " + acquisition + " to be granted";
            } else if (acquisition.state == State.WITHDRAWN) {
                return "waiting for the other acquire of " + acquisition + " to fail";
            }
        }
        for (Hold hold : this.holds) {
            if (hold.released) {
                continue;
            }
            if (hold.acquisition.state == State.HELD && !hold.lease.isValid()) {
                fail("c" + (hold.client + 1) + " lost " + hold.acquisition + " though nothing took it: " + hold.lease);
            }
            if (hold.acquisition.state == State.LOST && hold.lease.isValid()) {
                return "waiting for c" + (hold.client + 1) + " to learn that " + hold.acquisition + " is gone";
            }
        }
        return storeDivergence();
    }

    private @Nullable String storeDivergence() {
        Map<String, List<StoredKey>> locks = this.run.store().locks();
        for (String resource : locks.keySet()) {
            if (!this.model.resources().contains(resource)) {
                return "the store has keys of " + resource + ": " + locks.get(resource);
            }
        }
        for (String resource : this.model.resources()) {
            List<Acquisition> expected = this.model.keysOf(resource);
            List<StoredKey> actual = locks.getOrDefault(resource, List.of());
            if (expected.size() != actual.size()) {
                return resource + ": the store has " + actual + ", the model " + expected;
            }
            Map<Acquisition, String> learned = new HashMap<>();
            for (int i = 0; i < expected.size(); i++) {
                Acquisition acquisition = expected.get(i);
                StoredKey key = actual.get(i);
                boolean sameId = (acquisition.requestId != null)
                        ? acquisition.requestId.equals(key.requestId())
                        : !key.requestId().matches("a\\d+");
                boolean sameClient = key.client() == null || key.client() == acquisition.client;
                boolean sameToken = acquisition.token == 0 || key.createRevision() == acquisition.token;
                if (!sameId || !sameClient || !sameToken) {
                    return resource + ": key " + i + " of the store is " + key + ", the model's is " + acquisition;
                }
                if (acquisition.requestId == null) {
                    learned.put(acquisition, key.requestId());
                }
            }
            // A generated request id is learned once its key sits where the model puts it.
            learned.forEach((acquisition, id) -> acquisition.requestId = id);
        }
        return null;
    }

    /** Every valid lease is the model's holder and owns the oldest key; heldCount() agrees. */
    private void checkOwners() {
        Map<String, List<StoredKey>> locks = this.run.store().locks();
        Map<String, Set<Acquisition>> validHolders = new HashMap<>();
        for (Hold hold : this.holds) {
            if (hold.released || !hold.lease.isValid()) {
                continue;
            }
            Acquisition acquisition = hold.acquisition;
            if (acquisition.state != State.HELD) {
                fail("c" + (hold.client + 1) + " believes it holds " + hold.lease + ", but the model says "
                        + acquisition);
            }
            List<StoredKey> keys = locks.getOrDefault(acquisition.resource, List.of());
            if (keys.isEmpty() || keys.get(0).createRevision() != hold.lease.fencingToken()) {
                fail("c" + (hold.client + 1) + " believes it holds " + hold.lease + ", but the oldest key is " + keys);
            }
            validHolders
                    .computeIfAbsent(acquisition.resource, r -> new HashSet<>())
                    .add(acquisition);
        }
        validHolders.forEach((resource, holders) -> {
            if (holders.size() > 1) {
                fail("more than one valid holder of " + resource + ": " + holders);
            }
        });
        for (int c = 0; c < this.clients.size(); c++) {
            long held = this.model.live(c).stream()
                    .filter(a -> a.state == State.HELD)
                    .count();
            if (this.clients.get(c).heldCount() != held) {
                fail("c" + (c + 1) + " says it holds " + this.clients.get(c).heldCount() + " locks, the model " + held);
            }
        }
    }

    /** Closes every client: nothing may wait on, and no key may stay behind. */
    private void finish() {
        this.trace.add("(every client closes)");
        this.run.closeClients();
        awaitUntil("every acquire to end once its client closed", () -> {
            for (Attempt attempt : this.attempts) {
                if (!attempt.future.isDone()) {
                    return "the acquire of " + attempt.acquisition + " never ended";
                }
            }
            return null;
        });
        awaitUntil("no key left behind", () -> {
            Map<String, List<StoredKey>> locks = this.run.store().locks();
            List<String> markers = this.run.store().abandoned();
            return (locks.isEmpty() && markers.isEmpty()) ? null : "left behind: " + locks + ", markers " + markers;
        });
        failIfMonitorSawOverlap();
    }

    private void hold(int c, Acquisition acquisition, LockLease lease, boolean watch) {
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

    private List<Hold> openHolds(int c) {
        return this.holds.stream().filter(h -> h.client == c && !h.released).toList();
    }

    private List<Attempt> pendingAttempts(int c) {
        return this.attempts.stream()
                .filter(a -> a.client == c && !a.settled && a.acquisition.state == State.WAITING)
                .toList();
    }

    private static @Nullable StoredKey keyOf(Acquisition acquisition, Map<String, List<StoredKey>> locks) {
        for (StoredKey key : locks.getOrDefault(acquisition.resource, List.of())) {
            if (key.requestId().equals(acquisition.requestId)) {
                return key;
            }
        }
        return null;
    }

    private LockLease awaitLease(CompletableFuture<LockLease> future, Acquisition acquisition) {
        try {
            return future.get(timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            throw fail("the acquire of " + acquisition + " should be granted, but failed: " + ex.getCause());
        } catch (TimeoutException ex) {
            throw fail("the acquire of " + acquisition + " should be granted at once, but waited " + timeout());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private Throwable awaitFailure(CompletableFuture<LockLease> future, String what) {
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

    private <T> T get(CompletableFuture<T> future, String what) {
        try {
            return future.get(timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException ex) {
            throw fail(what + " did not complete: " + ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static String outcomeOf(CompletableFuture<LockLease> future) {
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
    private void awaitUntil(String what, Supplier<@Nullable String> divergence) {
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

    private void failIfMonitorSawOverlap() {
        String violation = this.monitor.violation();
        if (violation != null) {
            fail(violation);
        }
    }

    private Duration timeout() {
        return this.system.settleTimeout();
    }

    private AssertionError fail(String what) {
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
        throw new ModelViolation(message.toString(), this.trace);
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
