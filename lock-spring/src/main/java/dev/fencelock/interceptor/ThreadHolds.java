package dev.fencelock.interceptor;

import dev.fencelock.LockLease;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The locks that {@code @DistributedLock} calls on the current thread are running under, by
 * resource, with how deeply they are nested. A nested call for a resource the thread already
 * holds re-enters the outermost acquisition (same request id, so the client hands out another
 * hold on the same lock and token without asking the store).
 */
final class ThreadHolds {

    private static final ThreadLocal<Map<String, Held>> HOLDS = new ThreadLocal<>();

    private ThreadHolds() {}

    /** The outermost lease the current thread holds for {@code resource}, if any. */
    static @Nullable LockLease outermost(String resource) {
        Map<String, Held> holds = HOLDS.get();
        Held held = (holds != null) ? holds.get(resource) : null;
        return (held != null) ? held.lease : null;
    }

    static void enter(String resource, LockLease lease) {
        Map<String, Held> holds = HOLDS.get();
        if (holds == null) {
            holds = new HashMap<>(4);
            HOLDS.set(holds);
        }
        holds.computeIfAbsent(resource, (key) -> new Held(lease)).depth++;
    }

    static void exit(String resource) {
        Map<String, Held> holds = HOLDS.get();
        if (holds == null) {
            return;
        }
        Held held = holds.get(resource);
        if (held != null && --held.depth == 0) {
            holds.remove(resource);
        }
        if (holds.isEmpty()) {
            HOLDS.remove();
        }
    }

    private static final class Held {

        final LockLease lease;

        int depth;

        Held(LockLease lease) {
            this.lease = lease;
        }
    }
}
