package dev.fencelock.autoconfigure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.core.Ordered;

/**
 * Configuration properties for FenceLock.
 *
 * <p>Checked once they are bound, so a bad value stops the application at startup with the
 * property's name instead of failing the first lock call.
 */
@ConfigurationProperties("fencelock")
public class FenceLockProperties implements InitializingBean {

    /** Whether to enable FenceLock's auto-configuration. */
    private boolean enabled = true;

    /** Lock store to use; in-memory locks only protect within one JVM and are meant for tests. */
    private Backend backend = Backend.ETCD;

    /** Key prefix of all locks; applications that must exclude each other share it. */
    private String namespace = "/fencelock";

    /**
     * Lease time to live of locks that set none: how long a lock survives its holder going silent.
     * Whole seconds, at least 1s.
     */
    private Duration leaseTtl = Duration.ofSeconds(30);

    /** Time to wait for a busy lock when a request sets none; zero tries once. */
    private Duration waitTimeout = Duration.ofSeconds(10);

    /** Largest lease time to live a request or annotation may ask for. */
    private Duration maxLeaseTtl = Duration.ofMinutes(10);

    /** Largest wait timeout a request or annotation may ask for. */
    private Duration maxWaitTimeout = Duration.ofMinutes(5);

    /** Maximum number of callers of this instance that may wait for one resource at once. */
    private int maxWaitersPerResource = 1000;

    /** Maximum length of a resource name, in characters. */
    private int maxResourceLength = 255;

    private final Aspect aspect = new Aspect();

    @NestedConfigurationProperty
    private final FenceLockEtcdProperties etcd = new FenceLockEtcdProperties();

    @NestedConfigurationProperty
    private final FencingProperties fencing = new FencingProperties();

    private final Redis redis = new Redis();

    private final ZooKeeper zookeeper = new ZooKeeper();

    private final Audit audit = new Audit();

    private final Health health = new Health();

    private final HotResources hotResources = new HotResources();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Backend getBackend() {
        return this.backend;
    }

    public void setBackend(Backend backend) {
        this.backend = backend;
    }

    public String getNamespace() {
        return this.namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getLeaseTtl() {
        return this.leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public Duration getWaitTimeout() {
        return this.waitTimeout;
    }

    public void setWaitTimeout(Duration waitTimeout) {
        this.waitTimeout = waitTimeout;
    }

    public Duration getMaxLeaseTtl() {
        return this.maxLeaseTtl;
    }

    public void setMaxLeaseTtl(Duration maxLeaseTtl) {
        this.maxLeaseTtl = maxLeaseTtl;
    }

    public Duration getMaxWaitTimeout() {
        return this.maxWaitTimeout;
    }

    public void setMaxWaitTimeout(Duration maxWaitTimeout) {
        this.maxWaitTimeout = maxWaitTimeout;
    }

    public int getMaxWaitersPerResource() {
        return this.maxWaitersPerResource;
    }

    public void setMaxWaitersPerResource(int maxWaitersPerResource) {
        this.maxWaitersPerResource = maxWaitersPerResource;
    }

    public int getMaxResourceLength() {
        return this.maxResourceLength;
    }

    public void setMaxResourceLength(int maxResourceLength) {
        this.maxResourceLength = maxResourceLength;
    }

    public Aspect getAspect() {
        return this.aspect;
    }

    public FenceLockEtcdProperties getEtcd() {
        return this.etcd;
    }

    public Redis getRedis() {
        return this.redis;
    }

    public ZooKeeper getZookeeper() {
        return this.zookeeper;
    }

    public FencingProperties getFencing() {
        return this.fencing;
    }

    public Audit getAudit() {
        return this.audit;
    }

    public Health getHealth() {
        return this.health;
    }

    public HotResources getHotResources() {
        return this.hotResources;
    }

    @Override
    public void afterPropertiesSet() {
        new FenceLockPropertiesCheck(this).check();
    }

    /** Lock stores FenceLock can use. */
    public enum Backend {

        /** etcd, through jetcd. */
        ETCD,

        /** A store inside this JVM, for tests; it protects nothing across processes. */
        IN_MEMORY,

        /**
         * Redis, through Lettuce, where {@code spring.data.redis.*} points: an efficiency lock whose
         * tokens are not fencing tokens.
         */
        REDIS,

        /**
         * A ZooKeeper ensemble, through its own client: fencing tokens from the nodes' creation
         * zxids, one session per lease TTL.
         */
        ZOOKEEPER
    }

    /** Settings of the ZooKeeper backend. */
    public static class ZooKeeper {

        /** The ensemble's servers, comma-separated {@code host:port} pairs. */
        private String connectString = "localhost:2181";

        /**
         * The timeout of the session that health checks and the endpoint use while no lock holds a
         * session; it must lie within the servers' minSessionTimeout and maxSessionTimeout.
         */
        private Duration administrationSessionTimeout = Duration.ofSeconds(10);

        /** User of ZooKeeper's digest scheme; with one, the nodes are readable and writable by that user only. */
        private @Nullable String username;

        /** Password of the digest user. */
        private @Nullable String password;

        /** TLS towards the servers' secureClientPorts. */
        @NestedConfigurationProperty
        private final FenceLockZooKeeperTlsProperties tls = new FenceLockZooKeeperTlsProperties();

        public String getConnectString() {
            return this.connectString;
        }

        public void setConnectString(String connectString) {
            this.connectString = connectString;
        }

        public Duration getAdministrationSessionTimeout() {
            return this.administrationSessionTimeout;
        }

        public void setAdministrationSessionTimeout(Duration administrationSessionTimeout) {
            this.administrationSessionTimeout = administrationSessionTimeout;
        }

        public @Nullable String getUsername() {
            return this.username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return this.password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public FenceLockZooKeeperTlsProperties getTls() {
            return this.tls;
        }
    }

    /** Settings of the Redis backend; where Redis is comes from {@code spring.data.redis.*}. */
    public static class Redis {

        /** How long one command to Redis may take before the lock store counts as unavailable. */
        private Duration requestTimeout = Duration.ofSeconds(5);

        public Duration getRequestTimeout() {
            return this.requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }
    }

    /** Settings of the {@code @DistributedLock} advice. */
    public static class Aspect {

        /**
         * Order of the lock advice. It must be smaller (higher precedence) than the order of the
         * transaction advice (lowest precedence by default), so that the lock is taken before a
         * transaction begins and released after it commits or rolls back.
         */
        private int order = Ordered.LOWEST_PRECEDENCE - 1000;

        /** Whether to interrupt the thread of a locked method when its lock is lost. */
        private boolean interruptOnLost = true;

        /**
         * Whether a locked method returns without waiting for etcd to delete its lock. The delete
         * then rides on this instance's next acquisition (at most 1 ms later, 100 µs if one of its
         * threads waits for the same lock), so a lock cycle costs one etcd commit instead of two.
         * A late delete never breaks safety: the lock is only held a little longer.
         */
        private boolean releaseInBackground;

        public int getOrder() {
            return this.order;
        }

        public void setOrder(int order) {
            this.order = order;
        }

        public boolean isInterruptOnLost() {
            return this.interruptOnLost;
        }

        public void setInterruptOnLost(boolean interruptOnLost) {
            this.interruptOnLost = interruptOnLost;
        }

        public boolean isReleaseInBackground() {
            return this.releaseInBackground;
        }

        public void setReleaseInBackground(boolean releaseInBackground) {
            this.releaseInBackground = releaseInBackground;
        }
    }

    /** Audit trail of lock events, written to the {@code dev.fencelock.audit} logger. */
    public static class Audit {

        /** Whether to write an audit line for each acquire, release, loss and force-release. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The {@code fencelock} health contributor. */
    public static class Health {

        /** Longest time a health check waits for the lock store; the check is DOWN when it runs out. */
        private Duration timeout = Duration.ofSeconds(2);

        /** How long a health result is reused before the lock store is asked again. */
        private Duration cacheTtl = Duration.ofSeconds(5);

        private final Capacity capacity = new Capacity();

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getCacheTtl() {
            return this.cacheTtl;
        }

        public void setCacheTtl(Duration cacheTtl) {
            this.cacheTtl = cacheTtl;
        }

        public Capacity getCapacity() {
            return this.capacity;
        }

        /** When the health turns WARNING because the lock store is running out of room. */
        public static class Capacity {

            /**
             * Database size, as a fraction of fencelock.etcd.quota-backend-bytes, from which the health
             * is WARNING; etcd refuses writes at 1.
             */
            private double dbSizeWarning = 0.8;

            /** Revisions of history kept since the last compaction from which the health is WARNING; unset checks none. */
            private @Nullable Long revisionsSinceCompactionWarning;

            /**
             * Time since this instance saw etcd compact its history from which the health is WARNING;
             * unset checks none. Counted from the instance's start until it sees a compaction.
             */
            private @Nullable Duration timeSinceCompactionWarning;

            public double getDbSizeWarning() {
                return this.dbSizeWarning;
            }

            public void setDbSizeWarning(double dbSizeWarning) {
                this.dbSizeWarning = dbSizeWarning;
            }

            public @Nullable Long getRevisionsSinceCompactionWarning() {
                return this.revisionsSinceCompactionWarning;
            }

            public void setRevisionsSinceCompactionWarning(@Nullable Long revisionsSinceCompactionWarning) {
                this.revisionsSinceCompactionWarning = revisionsSinceCompactionWarning;
            }

            public @Nullable Duration getTimeSinceCompactionWarning() {
                return this.timeSinceCompactionWarning;
            }

            public void setTimeSinceCompactionWarning(@Nullable Duration timeSinceCompactionWarning) {
                this.timeSinceCompactionWarning = timeSinceCompactionWarning;
            }
        }
    }

    /**
     * The resources this instance's callers wait for most, ranked in bounded memory and shown by the
     * {@code fencelock} endpoint and the {@code fencelock.hot.*} gauges.
     */
    public static class HotResources {

        /** Number of resources ranked; 0 ranks none. Memory is eight counters per rank, at least 64. */
        private int size = 10;

        /** Time until a wait counts half in the ranking: how far back it looks. */
        private Duration halfLife = Duration.ofMinutes(1);

        public int getSize() {
            return this.size;
        }

        public void setSize(int size) {
            this.size = size;
        }

        public Duration getHalfLife() {
            return this.halfLife;
        }

        public void setHalfLife(Duration halfLife) {
            this.halfLife = halfLife;
        }
    }

    /** When to create the fence table at startup, like Spring Boot's database initialization modes. */
    public enum InitializationMode {

        /** Always create the table if it is missing. */
        ALWAYS,

        /** Create the table only in an embedded (in-memory) database. */
        EMBEDDED,

        /** Never create the table; a missing table stops the application. */
        NEVER
    }
}
