package dev.fencelock.verification.checker;

/**
 * A fault as the orchestrator logged it: from the moment it was injected to the moment it was healed.
 *
 * @param name the kind of fault, such as {@code zombie}
 * @param detail what exactly was done, such as {@code SIGSTOP w2 for 5000 ms}
 * @param start {@code System.nanoTime()} when the fault began
 * @param end {@code System.nanoTime()} when it was healed
 * @param deletion the lock key a force-release set out to delete, and what it deleted; {@code null} for other faults
 */
public record FaultWindow(String name, String detail, long start, long end, Deletion deletion) {

    /** A fault that deleted no lock key. */
    public FaultWindow(String name, String detail, long start, long end) {
        this(name, detail, start, end, null);
    }

    /**
     * What a force-release deleted.
     *
     * @param lockKey the lock (and counter), such as {@code k2}
     * @param token the create revision of the key it deleted, which is its holder's fencing token; {@code null} if it
     *     deleted nothing
     * @param caughtToken the fencing token of the holder the fault caught and set out to delete; {@code null} in
     *     fault logs written before it was recorded
     */
    public record Deletion(String lockKey, Long token, Long caughtToken) {

        /** A deletion whose caught holder the fault log does not name. */
        public Deletion(String lockKey, Long token) {
            this(lockKey, token, null);
        }
    }
}
