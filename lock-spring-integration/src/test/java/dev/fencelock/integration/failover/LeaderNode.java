package dev.fencelock.integration.failover;

import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.integration.FenceLockRegistry;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One application instance of the failover tests: a Spring context with a FenceLock client on
 * etcd, a {@link FenceLockRegistry}, Spring Integration's {@link LockRegistryLeaderInitiator} on it,
 * and a fenced PostgreSQL data source that the leader writes to. The same configuration runs in
 * the test's JVM and in a JVM of its own ({@link LeaderNodeMain}).
 */
final class LeaderNode {

    private LeaderNode() {}

    /** The settings of one instance. */
    record Settings(String id, String etcdEndpoint, String role, Duration leaseTtl, String tableSuffix) {

        Map<String, Object> properties() {
            return Map.of(
                    "node.id", id,
                    "node.etcd-endpoint", etcdEndpoint,
                    "node.role", role,
                    "node.lease-ttl", leaseTtl.toString(),
                    "node.table-suffix", tableSuffix);
        }

        String[] arguments() {
            return new String[] {id, etcdEndpoint, role, leaseTtl.toString(), tableSuffix};
        }

        static Settings fromArguments(String[] args) {
            return new Settings(args[0], args[1], args[2], Duration.parse(args[3]), args[4]);
        }
    }

    /** Starts an instance; {@code reporter} receives "granted &lt;token&gt;" and "revoked" lines. */
    static AnnotationConfigApplicationContext start(Settings settings, Consumer<String> reporter) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("node", settings.properties()));
        context.registerBean("reporter", Reporter.class, () -> reporter::accept);
        context.register(Beans.class);
        context.refresh();
        return context;
    }

    /** Where an instance reports its leadership: stdout in a child JVM, a queue in the test's. */
    interface Reporter {
        void report(String line);
    }

    static PGSimpleDataSource postgres() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(
                System.getenv().getOrDefault("FENCELOCK_PG_URL", "jdbc:postgresql://127.0.0.1:5432/fencelock"));
        dataSource.setUser("fencelock");
        dataSource.setPassword("fencelock");
        dataSource.setOptions("-c lock_timeout=5000");
        dataSource.setConnectTimeout(5);
        return dataSource;
    }

    static String fenceTable(String suffix) {
        return "fence_" + suffix;
    }

    static String counterTable(String suffix) {
        return "leader_counter_" + suffix;
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean(destroyMethod = "close")
        LockClient lockClient(@Value("${node.etcd-endpoint}") String endpoint, @Value("${node.id}") String id) {
            EtcdLockBackend backend = EtcdLockBackend.builder()
                    .endpoints(endpoint)
                    .instanceId(id)
                    .requestTimeout(Duration.ofSeconds(2))
                    .build();
            return LockClient.builder(backend).build();
        }

        @Bean
        FenceLockRegistry fenceLockRegistry(LockClient lockClient, @Value("${node.lease-ttl}") String leaseTtl) {
            return FenceLockRegistry.builder(lockClient)
                    .leaseTtl(Duration.parse(leaseTtl))
                    .build();
        }

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(
                FenceLockRegistry registry, @Value("${node.id}") String id, @Value("${node.role}") String role) {
            return new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, role));
        }

        @Bean
        LeaderWork leaderWork(
                FenceLockRegistry registry, Reporter reporter, @Value("${node.table-suffix}") String suffix) {
            FencedDataSource fenced = new FencedDataSource(
                    postgres(), FenceGuard.builder().table(fenceTable(suffix)).build());
            return new LeaderWork(registry, fenced, counterTable(suffix), reporter);
        }
    }
}
