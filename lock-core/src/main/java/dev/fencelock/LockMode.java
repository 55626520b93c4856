package dev.fencelock;

/**
 * How an acquisition shares its resource: one holder alone, or together with other readers.
 *
 * <p>A resource's queue is served in arrival order across both modes (as etcd's and Curator's
 * read-write recipes do): a reader waits only for the writers that arrived before it, a writer for
 * everyone who arrived before it. So a steady stream of readers never starves a writer: readers
 * that come after a waiting writer wait behind it.
 */
public enum LockMode {

    /** One holder at a time (a writer); the default. Its fencing token fences writes. */
    EXCLUSIVE,

    /**
     * Many holders at once as long as no writer holds or waits ahead of them (readers). Readers
     * share the lock, so their tokens fence nothing against each other; fenced data sources refuse
     * writes made only under shared locks.
     */
    SHARED
}
