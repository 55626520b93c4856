package dev.fencelock.test.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the lock should do, without any store: per resource the holder, the FIFO queue of waiters,
 * the highest token granted so far, and the request ids in use; per acquisition whether it waits,
 * is held, or ended (released, lost, withdrawn). Tokens are not predicted, only constrained: a new
 * holder's token must be larger than every earlier one of its resource ({@link #granted}).
 *
 * <p>One {@link Acquisition} is one key in the store. Re-entry (the same client and request id
 * while held) adds a hold to it; a retry with the same id while it waits joins it, and both
 * callers get the lock, with one token, when it comes.
 */
final class LockModel {

    enum State {
        WAITING,
        HELD,
        /** The last hold was given up; the key is deleted. */
        RELEASED,
        /** The session lease expired or an operator force-released it; its holds are not valid any more. */
        LOST,
        /** Left the queue without the lock: cancelled, or its session lease expired while it waited. */
        WITHDRAWN
    }

    static final class Acquisition {

        final int number;

        final int client;

        final String resource;

        /** The request id, once known: the caller's, or the one the client generated (learned from the store). */
        @Nullable
        String requestId;

        final boolean generatedId;

        State state = State.WAITING;

        /** Callers waiting for this key: the first acquire, and each retry with its id that joined it. */
        int attempts = 1;

        /** Holds not yet given up; every one of them is valid while the acquisition is held. */
        int openHolds;

        /** The fencing token, once granted. */
        long token;

        /** Why it ended, for failure messages. */
        String endedBy = "";

        Acquisition(int number, int client, String resource, @Nullable String requestId) {
            this.number = number;
            this.client = client;
            this.resource = resource;
            this.requestId = requestId;
            this.generatedId = requestId == null;
        }

        boolean isLive() {
            return this.state == State.WAITING || this.state == State.HELD;
        }

        @Override
        public String toString() {
            return "#" + this.number + "(c" + (this.client + 1) + " " + this.resource + " id="
                    + (this.generatedId ? "generated" : this.requestId) + " " + this.state
                    + (this.endedBy.isEmpty() ? "" : " by " + this.endedBy)
                    + (this.token != 0 ? " token=" + this.token : "") + ")";
        }
    }

    /** What an acquire should do. */
    enum AcquireOutcome {
        /** The resource was free: granted at once with a new token. */
        GRANTED,
        /** Busy: the new acquisition waits at the end of the queue. */
        QUEUED,
        /** Same client and id, held: one more hold, the same token, no new key. */
        REENTERED,
        /** Same client and id, waiting: the retry waits for the same key. */
        JOINED,
        /** Another client's live acquisition uses the id: refused, nothing changes. */
        REFUSED_IN_USE
    }

    record Acquire(AcquireOutcome outcome, Acquisition acquisition) {}

    private static final class Resource {

        @Nullable
        Acquisition holder;

        final Deque<Acquisition> queue = new ArrayDeque<>();

        long highestToken;
    }

    private final Map<String, Resource> resources = new LinkedHashMap<>();

    private final List<Acquisition> acquisitions = new ArrayList<>();

    LockModel(List<String> resourceNames) {
        resourceNames.forEach(name -> this.resources.put(name, new Resource()));
    }

    List<String> resources() {
        return List.copyOf(this.resources.keySet());
    }

    Acquire acquire(int client, String resource, @Nullable String requestId) {
        Resource state = this.resources.get(resource);
        if (requestId != null) {
            Acquisition inUse = liveWithId(resource, requestId);
            if (inUse != null && inUse.client != client) {
                return new Acquire(AcquireOutcome.REFUSED_IN_USE, inUse);
            }
            if (inUse != null && inUse.state == State.HELD) {
                inUse.openHolds++;
                return new Acquire(AcquireOutcome.REENTERED, inUse);
            }
            if (inUse != null) {
                inUse.attempts++;
                return new Acquire(AcquireOutcome.JOINED, inUse);
            }
        }
        Acquisition created = new Acquisition(this.acquisitions.size() + 1, client, resource, requestId);
        this.acquisitions.add(created);
        if (state.holder == null) {
            hold(state, created);
            return new Acquire(AcquireOutcome.GRANTED, created);
        }
        state.queue.addLast(created);
        return new Acquire(AcquireOutcome.QUEUED, created);
    }

    /**
     * Records the token the store gave {@code acquisition}; returns why it is wrong (not larger than
     * every earlier token of the resource), or {@code null}.
     */
    @Nullable
    String granted(Acquisition acquisition, long token) {
        Resource state = this.resources.get(acquisition.resource);
        if (acquisition.token != 0) {
            return (token == acquisition.token)
                    ? null
                    : "a hold of " + acquisition + " got token " + token + ", not the acquisition's token";
        }
        if (token <= state.highestToken) {
            return acquisition + " was granted token " + token + ", but " + acquisition.resource + " already had token "
                    + state.highestToken;
        }
        acquisition.token = token;
        state.highestToken = token;
        return null;
    }

    /** One hold is given up; returns what {@code release()} should report: whether the lock was held. */
    boolean release(Acquisition acquisition) {
        acquisition.openHolds--;
        if (acquisition.state != State.HELD) {
            return false;
        }
        if (acquisition.openHolds == 0) {
            end(acquisition, State.RELEASED, "release");
        }
        return true;
    }

    /** A waiter is cancelled: its key goes, and every other caller waiting for that key fails. */
    void cancel(Acquisition acquisition) {
        end(acquisition, State.WITHDRAWN, "cancel");
    }

    /**
     * The session leases of {@code clients} ran out (one fault may take several): their locks are
     * lost and their waiters fail. All their waiters go first: none of them may be handed a lock
     * that a session lost in the same fault held.
     */
    void sessionsLost(Set<Integer> clients, String why) {
        List<Acquisition> affected = this.acquisitions.stream()
                .filter(a -> clients.contains(a.client) && a.isLive())
                .toList();
        for (Acquisition acquisition : affected) {
            if (acquisition.state == State.WAITING) {
                end(acquisition, State.WITHDRAWN, why);
            }
        }
        for (Acquisition acquisition : affected) {
            if (acquisition.state == State.HELD) {
                end(acquisition, State.LOST, why);
            }
        }
    }

    /** An operator deletes the holder's key; returns the holder, if there was one. */
    @Nullable
    Acquisition forceRelease(String resource) {
        Acquisition holder = this.resources.get(resource).holder;
        if (holder != null) {
            end(holder, State.LOST, "force-release");
        }
        return holder;
    }

    /** The holder of {@code resource} followed by its waiters, oldest first: the keys the store must have. */
    List<Acquisition> keysOf(String resource) {
        Resource state = this.resources.get(resource);
        List<Acquisition> keys = new ArrayList<>();
        if (state.holder != null) {
            keys.add(state.holder);
        }
        keys.addAll(state.queue);
        return keys;
    }

    @Nullable
    Acquisition holder(String resource) {
        return this.resources.get(resource).holder;
    }

    List<Acquisition> live(int client) {
        return this.acquisitions.stream()
                .filter(a -> a.client == client && a.isLive())
                .toList();
    }

    List<Acquisition> all() {
        return List.copyOf(this.acquisitions);
    }

    private @Nullable Acquisition liveWithId(String resource, String requestId) {
        for (Acquisition acquisition : this.acquisitions) {
            if (acquisition.isLive()
                    && acquisition.resource.equals(resource)
                    && requestId.equals(acquisition.requestId)) {
                return acquisition;
            }
        }
        return null;
    }

    private void end(Acquisition acquisition, State state, String why) {
        Resource resource = this.resources.get(acquisition.resource);
        boolean wasHolder = resource.holder == acquisition;
        acquisition.state = state;
        acquisition.endedBy = why;
        resource.queue.remove(acquisition);
        if (wasHolder) {
            resource.holder = null;
            Acquisition next = resource.queue.pollFirst();
            if (next != null) {
                hold(resource, next);
            }
        }
    }

    private static void hold(Resource resource, Acquisition acquisition) {
        resource.holder = acquisition;
        acquisition.state = State.HELD;
        // Every caller waiting for the key gets a hold of it.
        acquisition.openHolds += acquisition.attempts;
    }
}
