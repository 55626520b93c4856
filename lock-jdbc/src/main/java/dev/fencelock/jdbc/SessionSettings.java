package dev.fencelock.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * What the guard puts in the session along with its check, in the same statement where the
 * database allows it.
 *
 * @param fence the protected tables' fence ({@link SessionFence}), or {@code null} when unchanged
 *     or not needed
 * @param idleMillis how long the transaction may sit idle before the database ends it, or 0: a
 *     holder frozen inside its transaction (a GC pause, SIGSTOP) would otherwise keep the fence row
 *     locked for as long as it stays frozen, and every later holder of the resource waits for it
 */
record SessionSettings(@Nullable String fence, long idleMillis) {

    static final SessionSettings NONE = new SessionSettings(null, 0);

    boolean isEmpty() {
        return this.fence == null && this.idleMillis <= 0;
    }
}
