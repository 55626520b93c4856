package dev.fencelock.benchmarks;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.redis.RedisServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A local three-member etcd (data on disk, loopback) and a local Redis, for one run. */
public final class BenchEnvironment implements AutoCloseable {

    private static final Pattern RECEIVED = Pattern.compile(
            "^grpc_server_msg_received_total\\{[^}]*grpc_method=\"([^\"]+)\"[^}]*\\} ([0-9.eE+]+)$", Pattern.MULTILINE);

    /** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
    private static final long CLOCK_TICKS = 100;

    private final EtcdCluster etcd;

    private final RedisServer redis;

    private BenchEnvironment(EtcdCluster etcd, RedisServer redis) {
        this.etcd = etcd;
        this.redis = redis;
    }

    public static BenchEnvironment start() {
        EtcdCluster etcd = EtcdCluster.start(3);
        try {
            return new BenchEnvironment(etcd, RedisServer.start());
        } catch (RuntimeException ex) {
            etcd.close();
            throw ex;
        }
    }

    public EtcdCluster etcd() {
        return this.etcd;
    }

    public RedisServer redis() {
        return this.redis;
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
        ticks += cpuTicks(this.redis.pid());
        return ticks * (1_000_000_000L / CLOCK_TICKS);
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
            this.redis.close();
        } finally {
            this.etcd.close();
        }
    }
}
