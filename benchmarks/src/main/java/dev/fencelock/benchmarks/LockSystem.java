package dev.fencelock.benchmarks;

import java.time.Duration;

/**
 * One lock implementation under test, as the scenarios drive it. Each benchmark thread gets its own
 * {@link Worker}, because some implementations tie ownership to a thread (Redisson) or to a lease
 * (etcd's v3lock), and sharing one would silently turn contenders into a single owner.
 */
public interface LockSystem extends AutoCloseable {

    /** Short name used in tables and the chart. */
    String name();

    /** Whether {@link Worker#acquire} can wait for a held lock; raw etcd puts cannot. */
    boolean supportsWaiting();

    /** Whether {@link Held#token()} is a fencing token that grows with every acquisition of a resource. */
    default boolean hasFencingTokens() {
        return false;
    }

    /** The store the implementation runs on, whose servers' CPU and requests a case counts. */
    default Store store() {
        return Store.ETCD;
    }

    /** A new worker for one benchmark thread. */
    Worker newWorker() throws Exception;

    @Override
    void close();

    /** Drives one lock implementation from one thread. */
    interface Worker extends AutoCloseable {

        /**
         * Acquires {@code key}, waiting up to {@code wait} for its holder.
         *
         * @throws Exception when the lock could not be acquired (timeout, store unavailable)
         */
        Held acquire(String key, Duration wait) throws Exception;

        /** Releases what {@link #acquire} returned. */
        void release(Held held) throws Exception;

        @Override
        default void close() {}
    }

    /**
     * A held lock.
     *
     * @param key the key that was locked
     * @param token the fencing token, or {@link #NO_TOKEN} where the implementation has none
     * @param handle whatever the implementation needs to release it
     */
    record Held(String key, long token, Object handle) {}

    /** Token of implementations without fencing tokens. */
    long NO_TOKEN = -1;

    /** The stores the benchmarks start. */
    enum Store {
        ETCD,
        ZOOKEEPER,
        REDIS
    }
}
