package dev.fencelock;

/**
 * The name of the way an acquisition ended without the lock, the same in the {@code outcome} tag of
 * {@code fencelock.acquire} and in the audit log: {@code conflict} (a try found the lock held),
 * {@code timeout} (it stayed busy for the whole wait), {@code unknown} (a write went unanswered and
 * may have been applied), {@code unavailable}, {@code denied}, or {@code error} for anything else.
 */
public final class AcquireOutcome {

    private AcquireOutcome() {}

    /**
     * @param cause why the acquisition ended without the lock
     * @param queued whether it would wait for a busy lock; a try that finds the lock held is a
     *     {@code conflict}, not a {@code timeout}
     */
    public static String of(Throwable cause, boolean queued) {
        if (cause instanceof LockAcquisitionTimeoutException) {
            return queued ? "timeout" : "conflict";
        }
        if (cause instanceof LockOutcomeUnknownException) {
            return "unknown";
        }
        if (cause instanceof LockBackendUnavailableException) {
            return "unavailable";
        }
        if (cause instanceof LockStoreAccessDeniedException) {
            return "denied";
        }
        return "error";
    }
}
