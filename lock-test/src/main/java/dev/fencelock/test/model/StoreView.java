package dev.fencelock.test.model;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The lock keys as the store has them, read directly, not through the client under test. */
public interface StoreView {

    /**
     * One lock key.
     *
     * @param requestId the request id in the key
     * @param createRevision its create revision: the token of its holder
     * @param leaseId the lease it lives on
     * @param client the client (0-based) whose holder record it carries, or {@code null} where the store records none
     */
    record StoredKey(
            String requestId,
            long createRevision,
            long leaseId,
            @Nullable Integer client) {}

    /** Every lock key of the run's namespace, by resource, each resource's keys oldest first. */
    Map<String, List<StoredKey>> locks();

    /**
     * The abandon markers of the run's namespace, as {@code c<client>:resource/requestId}: while one
     * lives, a put of that request id by that client's session is refused (its earlier put had an
     * unknown outcome and was abandoned). Other clients' puts of the same id are not affected.
     * Empty for a store that keeps no such markers.
     */
    List<String> abandoned();

    /** Every put and delete in the run's namespace so far, oldest first, to explain a failure; empty where unknown. */
    List<String> history();
}
