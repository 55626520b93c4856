package dev.fencelock.test.model;

import dev.fencelock.LockLease;
import dev.fencelock.test.model.LockModel.Acquisition;
import dev.fencelock.test.model.LockModel.State;
import dev.fencelock.test.model.StoreView.StoredKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The checks after every step of a {@link ModelRun}: wait until the clients and the store reach the
 * model's state, follow the sessions a fault or a stall took, and check who believes it holds what.
 */
abstract class RunChecks extends RunState {

    RunChecks(LockSystem system, LockSystem.Run run, RunStats stats) {
        super(system, run, stats);
    }

    /** After every step: wait until clients and store reach the model's state, then check it. */
    void settle(long faultEnded) {
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
    boolean reconcileStalls() {
        Set<Integer> lost = new HashSet<>();
        for (int c = 0; c < this.clients.size(); c++) {
            List<Hold> lostHolds = openHolds(c).stream()
                    .filter(hold -> hold.acquisition.state == State.HELD && !hold.lease.isValid())
                    .toList();
            boolean somethingEnded =
                    !lostHolds.isEmpty() || pendingAttempts(c).stream().anyMatch(attempt -> attempt.future.isDone());
            // The client must say why: its keep-alives went unconfirmed past the session's local deadline.
            boolean byDeadline = lostHolds.stream().allMatch(RunChecks::lostToLocalDeadline);
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
    void reconcileSessions(long faultEnded) {
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

    static boolean lostToLocalDeadline(Hold hold) {
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

    boolean kept(int c, long faultEnded) {
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

    boolean lostWhole(int c) {
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
    static boolean grantedValid(Attempt attempt) {
        return attempt.future.isDone()
                && !attempt.future.isCompletedExceptionally()
                && attempt.future.join().isValid();
    }

    /** What still differs from the model, or {@code null}; fails at once on what no waiting can mend. */
    @Nullable
    String divergence() {
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

    @Nullable
    String storeDivergence() {
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
    void checkOwners() {
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
    void finish() {
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
}
