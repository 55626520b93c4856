package dev.fencelock.benchmarks;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.lock.LockResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The four lock implementations the benchmarks compare, each over its own client connection. */
public final class Systems {

    public static final String FENCELOCK = "FenceLock";
    /** FenceLock with {@code releaseAsync()}: the caller does not wait for the delete. */
    public static final String FENCELOCK_ASYNC = "FenceLock, releaseAsync";

    public static final String RAW_ETCD = "raw etcd Put";
    public static final String JETCD_LOCK = "jetcd Lock (v3lock)";
    public static final String REDISSON = "Redisson RLock";

    private Systems() {}

    /** FenceLock's client over its etcd backend, with the default 30 s session lease; {@code release()}. */
    public static FenceLockSystem fenceLock(List<String> endpoints, String namespace) {
        return fenceLock(endpoints, namespace, false);
    }

    /**
     * The same, releasing with {@code releaseAsync()} when {@code asyncRelease}: the delete then
     * rides on the client's next acquisition Txn.
     */
    public static FenceLockSystem fenceLock(List<String> endpoints, String namespace, boolean asyncRelease) {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(endpoints)
                .namespace(namespace)
                .build();
        LockClient client = LockClient.builder(backend)
                .defaultLeaseTtl(Duration.ofSeconds(30))
                .maxWaitersPerResource(10_000)
                .build();
        return new FenceLockSystem(
                asyncRelease ? FENCELOCK_ASYNC : FENCELOCK, client, backend, asyncRelease, LockSystem.Store.ETCD);
    }

    /** {@link #fenceLock(List, String)} under another name, for tables that show it beside other stores. */
    public static FenceLockSystem fenceLock(List<String> endpoints, String namespace, String name) {
        FenceLockSystem system = fenceLock(endpoints, namespace, false);
        return new FenceLockSystem(name, system.client, system.backend, false, LockSystem.Store.ETCD);
    }

    /** The commit ceiling: one plain Put per "cycle", no release, no lease. */
    public static LockSystem rawEtcd(List<String> endpoints) {
        return new RawEtcdSystem(jetcd(endpoints));
    }

    /** etcd's own lock service through jetcd's {@code Lock} client, one granted lease per worker. */
    public static LockSystem jetcdLock(List<String> endpoints) {
        return new JetcdLockSystem(jetcd(endpoints));
    }

    /** Redisson's {@code RLock} (watchdog lease, 30 s) on a local Redis. */
    public static LockSystem redisson(int redisPort) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + redisPort)
                .setConnectionPoolSize(128)
                .setConnectionMinimumIdleSize(16)
                .setSubscriptionConnectionPoolSize(64);
        return new RedissonSystem(Redisson.create(config));
    }

    static Client jetcd(List<String> endpoints) {
        return Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
    }

    static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }

    /** FenceLock: one shared {@link LockClient}, as an application would have. */
    public static final class FenceLockSystem implements LockSystem {

        private final String name;

        private final LockClient client;

        private final @Nullable EtcdLockBackend backend;

        private final boolean asyncRelease;

        private final Store store;

        FenceLockSystem(
                String name, LockClient client, @Nullable EtcdLockBackend backend, boolean asyncRelease, Store store) {
            this.name = name;
            this.client = client;
            this.backend = backend;
            this.asyncRelease = asyncRelease;
            this.store = store;
        }

        public LockClient client() {
            return this.client;
        }

        /** The etcd backend; only FenceLock on etcd has one. */
        public EtcdLockBackend backend() {
            return java.util.Objects.requireNonNull(this.backend, "FenceLock on etcd only");
        }

        @Override
        public Store store() {
            return this.store;
        }

        @Override
        public String name() {
            return this.name;
        }

        @Override
        public boolean supportsWaiting() {
            return true;
        }

        @Override
        public boolean hasFencingTokens() {
            return true;
        }

        @Override
        public Worker newWorker() {
            return new Worker() {
                @Override
                public Held acquire(String key, Duration wait) {
                    LockLease lease = FenceLockSystem.this.client.acquire(
                            LockRequest.builder(key).waitTimeout(wait).build());
                    return new Held(key, lease.fencingToken(), lease);
                }

                @Override
                public void release(Held held) {
                    LockLease lease = (LockLease) held.handle();
                    if (FenceLockSystem.this.asyncRelease) {
                        lease.releaseAsync();
                    } else {
                        lease.release();
                    }
                }
            };
        }

        @Override
        public void close() {
            this.client.close();
        }
    }

    /**
     * Raw etcd: the cost of one commit, which every etcd lock pays at least once per acquisition. Each
     * worker overwrites its own key with a plain Put, so nothing accumulates and nothing has to be
     * deleted in bulk afterwards (a bulk delete of ~10,000 keys was measured to slow etcd's following
     * writes for tens of seconds, which would penalise whichever system runs next).
     */
    static final class RawEtcdSystem implements LockSystem {

        private final Client client;

        RawEtcdSystem(Client client) {
            this.client = client;
        }

        @Override
        public String name() {
            return RAW_ETCD;
        }

        @Override
        public boolean supportsWaiting() {
            return false;
        }

        @Override
        public Worker newWorker() {
            ByteSequence workerKey = bytes("/bench-raw/" + UUID.randomUUID());
            ByteSequence value = bytes("x");
            return new Worker() {
                @Override
                public Held acquire(String key, Duration wait) throws Exception {
                    PutResponse response = RawEtcdSystem.this
                            .client
                            .getKVClient()
                            .put(workerKey, value)
                            .get(wait.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
                    return new Held(key, response.getHeader().getRevision(), workerKey);
                }

                @Override
                public void release(Held held) {
                    // One commit per cycle: the put above is the whole cycle.
                }

                @Override
                public void close() {
                    try {
                        RawEtcdSystem.this
                                .client
                                .getKVClient()
                                .delete(workerKey)
                                .get(10, TimeUnit.SECONDS);
                    } catch (Exception ex) {
                        // A left-over key of a benchmark namespace; harmless.
                    }
                }
            };
        }

        @Override
        public void close() {
            this.client.close();
        }
    }

    /** etcd's v3lock: the server waits for the lock; ownership is name + lease, so one lease per worker. */
    static final class JetcdLockSystem implements LockSystem {

        private final Client client;

        JetcdLockSystem(Client client) {
            this.client = client;
        }

        @Override
        public String name() {
            return JETCD_LOCK;
        }

        @Override
        public boolean supportsWaiting() {
            return true;
        }

        @Override
        public Worker newWorker() throws Exception {
            // Long enough for any case without keep-alives; revoked when the worker closes.
            long leaseId = this.client
                    .getLeaseClient()
                    .grant(600)
                    .get(10, TimeUnit.SECONDS)
                    .getID();
            return new Worker() {
                @Override
                public Held acquire(String key, Duration wait) throws Exception {
                    LockResponse response;
                    var pending = JetcdLockSystem.this.client.getLockClient().lock(bytes(key), leaseId);
                    try {
                        response = pending.get(wait.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (TimeoutException ex) {
                        pending.cancel(true);
                        throw ex;
                    }
                    return new Held(key, response.getHeader().getRevision(), response.getKey());
                }

                @Override
                public void release(Held held) throws Exception {
                    JetcdLockSystem.this
                            .client
                            .getLockClient()
                            .unlock((ByteSequence) held.handle())
                            .get(10, TimeUnit.SECONDS);
                }

                @Override
                public void close() {
                    try {
                        JetcdLockSystem.this
                                .client
                                .getLeaseClient()
                                .revoke(leaseId)
                                .get(10, TimeUnit.SECONDS);
                    } catch (Exception ex) {
                        // The lease expires by itself.
                    }
                }
            };
        }

        @Override
        public void close() {
            this.client.close();
        }
    }

    /** Redisson: {@code RLock} belongs to the thread that locked it, which is how users use it. */
    static final class RedissonSystem implements LockSystem {

        private final RedissonClient redisson;

        RedissonSystem(RedissonClient redisson) {
            this.redisson = redisson;
        }

        @Override
        public String name() {
            return REDISSON;
        }

        @Override
        public Store store() {
            return Store.REDIS;
        }

        @Override
        public boolean supportsWaiting() {
            return true;
        }

        @Override
        public Worker newWorker() {
            return new Worker() {
                @Override
                public Held acquire(String key, Duration wait) throws Exception {
                    RLock lock = RedissonSystem.this.redisson.getLock(key);
                    if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new LockAcquisitionTimeoutException("Redisson lock " + key + " stayed busy");
                    }
                    return new Held(key, NO_TOKEN, lock);
                }

                @Override
                public void release(Held held) {
                    ((RLock) held.handle()).unlock();
                }
            };
        }

        @Override
        public void close() {
            this.redisson.shutdown();
        }
    }
}
