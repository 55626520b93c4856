package dev.fencelock.benchmarks;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** The lock implementations on ZooKeeper that the store comparison runs: FenceLock's backend and Curator's mutex. */
public final class ZooKeeperSystems {

    public static final String FENCELOCK_ZOOKEEPER = "FenceLock on ZooKeeper";

    public static final String CURATOR = "Curator InterProcessMutex";

    /** Curator's lock nodes live below this path, one child per resource. */
    static final String CURATOR_ROOT = "/curator-locks";

    /** The session timeout of both, as FenceLock's default lease. */
    static final Duration SESSION = Duration.ofSeconds(30);

    private ZooKeeperSystems() {}

    /** FenceLock's client over its ZooKeeper backend, one shared client, {@code release()}. */
    public static LockSystem fenceLock(String connectString, String namespace) {
        ZooKeeperLockBackend backend = ZooKeeperLockBackend.builder()
                .connectString(connectString)
                .namespace(namespace)
                .build();
        LockClient client = LockClient.builder(backend)
                .defaultLeaseTtl(SESSION)
                .maxWaitersPerResource(10_000)
                .build();
        return new Systems.FenceLockSystem(FENCELOCK_ZOOKEEPER, client, null, false, LockSystem.Store.ZOOKEEPER);
    }

    /** Curator's {@code InterProcessMutex} over one shared {@code CuratorFramework}, as an application would have. */
    public static LockSystem curator(String connectString) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs(15_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("Curator did not connect to " + connectString + " within 60 s");
        }
        return new CuratorSystem(client);
    }

    /**
     * The node of {@code key}'s mutex: one child of {@link #CURATOR_ROOT} per resource (slashes in the
     * benchmark's keys would otherwise nest resources, which FenceLock's encoding of names never does).
     */
    static String curatorPath(String key) {
        return CURATOR_ROOT + "/" + key.replace('/', '_');
    }

    /**
     * Curator's mutex: one {@code InterProcessMutex} per acquisition, released by the thread that
     * acquired it (the mutex is thread-bound, and every scenario releases on the acquiring thread).
     * It has no fencing token.
     */
    static final class CuratorSystem implements LockSystem {

        private final CuratorFramework client;

        CuratorSystem(CuratorFramework client) {
            this.client = client;
        }

        @Override
        public String name() {
            return CURATOR;
        }

        @Override
        public boolean supportsWaiting() {
            return true;
        }

        @Override
        public Store store() {
            return Store.ZOOKEEPER;
        }

        @Override
        public Worker newWorker() {
            return new Worker() {
                @Override
                public Held acquire(String key, Duration wait) throws Exception {
                    InterProcessMutex mutex = new InterProcessMutex(CuratorSystem.this.client, curatorPath(key));
                    if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new LockAcquisitionTimeoutException("Curator lock " + key + " stayed busy");
                    }
                    return new Held(key, NO_TOKEN, mutex);
                }

                @Override
                public void release(Held held) throws Exception {
                    ((InterProcessMutex) held.handle()).release();
                }
            };
        }

        @Override
        public void close() {
            this.client.close();
        }
    }
}
