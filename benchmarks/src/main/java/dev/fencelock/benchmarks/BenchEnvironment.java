package dev.fencelock.benchmarks;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.redis.RedisServer;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A local three-member etcd (data on disk, loopback) and a local Redis, for one run; or, for the
 * comparison of stores, the etcd and a three-member ZooKeeper ensemble.
 */
public final class BenchEnvironment implements AutoCloseable {

    private static final Pattern RECEIVED = Pattern.compile(
            "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"([^\"]+)\"[^}]*\\} ([0-9.eE+]+)$", Pattern.MULTILINE);

    /** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
    private static final long CLOCK_TICKS = 100;

    private static final Pattern ZXID = Pattern.compile("^Zxid: 0x([0-9a-fA-F]+)$", Pattern.MULTILINE);

    private static final Pattern MNTR =
            Pattern.compile("^(zk_cnt_readlatency|zk_cnt_updatelatency)\\s+([0-9]+)$", Pattern.MULTILINE);

    /** The key under which {@link #requests} counts commits (etcd's raft commits, ZooKeeper's zxids). */
    public static final String COMMITS = "commits";

    /** The key under which {@link #requests} counts ZooKeeper's answered reads (pings and syncs included). */
    public static final String ZOOKEEPER_READS = "reads";

    /** The key under which {@link #requests} counts ZooKeeper's answered write requests (failed ones included). */
    public static final String ZOOKEEPER_WRITES = "writes";

    /**
     * Each ZooKeeper member's heap: the seed workload leaves up to 100,000 empty resource nodes and
     * 20,000 held ones, which the kit's default of 128 MiB cannot hold (its members spent their time in
     * full collections).
     */
    static final String ZOOKEEPER_HEAP = "512m";

    private final EtcdCluster etcd;

    private final @Nullable RedisServer redis;

    private final @Nullable ZooKeeperEnsemble zookeeper;

    private BenchEnvironment(EtcdCluster etcd, @Nullable RedisServer redis, @Nullable ZooKeeperEnsemble zookeeper) {
        this.etcd = etcd;
        this.redis = redis;
        this.zookeeper = zookeeper;
    }

    public static BenchEnvironment start() {
        EtcdCluster etcd = EtcdCluster.start(3);
        try {
            return new BenchEnvironment(etcd, RedisServer.start(), null);
        } catch (RuntimeException ex) {
            etcd.close();
            throw ex;
        }
    }

    /** A three-member etcd and a three-member ZooKeeper ensemble (Debian's package), no Redis. */
    public static BenchEnvironment startWithZooKeeper() {
        EtcdCluster etcd = EtcdCluster.start(3);
        try {
            return new BenchEnvironment(etcd, null, ZooKeeperEnsemble.start(3, "", ZOOKEEPER_HEAP));
        } catch (RuntimeException ex) {
            etcd.close();
            throw ex;
        }
    }

    public EtcdCluster etcd() {
        return this.etcd;
    }

    public RedisServer redis() {
        return java.util.Objects.requireNonNull(this.redis, "This environment runs no Redis");
    }

    public ZooKeeperEnsemble zookeeper() {
        return java.util.Objects.requireNonNull(this.zookeeper, "This environment runs no ZooKeeper");
    }

    public List<String> endpoints() {
        return this.etcd.endpoints();
    }

    /** Sum of one metric over the members that are running. */
    public double etcdMetric(String name, String labelFilter) {
        return etcdMetric(this.etcd, name, labelFilter);
    }

    /** Sum of one metric over the members of {@code cluster} that are running and not paused. */
    static double etcdMetric(EtcdCluster cluster, String name, String labelFilter) {
        double sum = 0;
        for (EtcdMember member : cluster.members()) {
            if (member.isRunning() && !member.isPaused()) {
                sum += member.metric(name, labelFilter);
            }
        }
        return sum;
    }

    /**
     * CPU time used so far by the etcd members and Redis (user + system, from {@code /proc}), in
     * nanoseconds; members restarted in between start from zero again, so use it across cases that
     * kill nothing.
     */
    public long serverCpuNanos() {
        long ticks = 0;
        for (EtcdMember member : this.etcd.members()) {
            if (member.isRunning()) {
                ticks += cpuTicks(member.pid());
            }
        }
        if (this.redis != null) {
            ticks += cpuTicks(this.redis.pid());
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS);
    }

    /**
     * CPU time used so far by the servers of {@code system}'s store: the ZooKeeper members for a
     * system on ZooKeeper, else {@link #serverCpuNanos()}.
     */
    public long serverCpuNanos(LockSystem system) {
        if (system.store() != LockSystem.Store.ZOOKEEPER) {
            return serverCpuNanos();
        }
        long ticks = 0;
        for (ZooKeeperEnsemble.Member member : zookeeper().members()) {
            ticks += cpuTicks(member.pid());
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS);
    }

    /**
     * What {@code system}'s store received so far: for etcd, {@link #etcdRequests()}, and where
     * ZooKeeper runs beside it (the comparison of stores) also the {@link #COMMITS} of its raft log;
     * for ZooKeeper, the {@link #ZOOKEEPER_READS} and {@link #ZOOKEEPER_WRITES} its members answered and the
     * {@link #COMMITS} of the ensemble (the zxid's counter: one per committed transaction, errors
     * and the server's own deletions of empty containers included).
     */
    public Map<String, Double> requests(LockSystem system) {
        if (system.store() == LockSystem.Store.ZOOKEEPER) {
            Map<String, Double> counts = new TreeMap<>();
            double reads = 0;
            double writes = 0;
            long zxid = 0;
            for (ZooKeeperEnsemble.Member member : zookeeper().members()) {
                // Each member counts the requests of its own clients; the leader's own deletions of empty
                // containers have no client and count in the zxid only.
                String mntr = member.fourLetters("mntr");
                Matcher counter = MNTR.matcher(mntr == null ? "" : mntr);
                while (counter.find()) {
                    if (counter.group(1).equals("zk_cnt_readlatency")) {
                        reads += Double.parseDouble(counter.group(2));
                    } else {
                        writes += Double.parseDouble(counter.group(2));
                    }
                }
                String srvr = member.fourLetters("srvr");
                Matcher matcher = ZXID.matcher(srvr == null ? "" : srvr);
                if (matcher.find()) {
                    // Within one epoch (nothing fails in these cases) the low 32 bits count transactions.
                    zxid = Math.max(zxid, Long.parseLong(matcher.group(1), 16) & 0xffff_ffffL);
                }
            }
            counts.put(ZOOKEEPER_READS, reads);
            counts.put(ZOOKEEPER_WRITES, writes);
            counts.put(COMMITS, (double) zxid);
            return counts;
        }
        Map<String, Double> counts = etcdRequests();
        if (this.zookeeper != null) {
            double committed = 0;
            for (EtcdMember member : this.etcd.members()) {
                if (member.isRunning()) {
                    committed = Math.max(committed, member.metric("etcd_server_proposals_committed_total", null));
                }
            }
            counts.put(COMMITS, committed);
        }
        return counts;
    }

    /**
     * gRPC messages etcd received so far, per method (Txn, Range, Watch, LeaseKeepAlive, Lock, ...),
     * summed over the running members: one per unary call, one per message on a stream.
     */
    public Map<String, Double> etcdRequests() {
        Map<String, Double> counts = new TreeMap<>();
        for (EtcdMember member : this.etcd.members()) {
            if (!member.isRunning()) {
                continue;
            }
            Matcher matcher = RECEIVED.matcher(member.metrics());
            while (matcher.find()) {
                counts.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
            }
        }
        return counts;
    }

    /** {@code after - before} per method, dropping methods that did not change. */
    public static Map<String, Double> delta(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> delta = new TreeMap<>();
        after.forEach((method, count) -> {
            double change = count - before.getOrDefault(method, 0.0);
            if (change > 0) {
                delta.put(method, change);
            }
        });
        return delta;
    }

    /** CPU time used so far by this JVM, in nanoseconds. */
    public static long clientCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }

    private static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // After "pid (comm) ", field 0 is state; utime and stime are fields 11 and 12.
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException ex) {
            return 0;
        }
    }

    @Override
    public void close() {
        try {
            if (this.redis != null) {
                this.redis.close();
            }
        } finally {
            try {
                if (this.zookeeper != null) {
                    this.zookeeper.close();
                }
            } finally {
                this.etcd.close();
            }
        }
    }
}
