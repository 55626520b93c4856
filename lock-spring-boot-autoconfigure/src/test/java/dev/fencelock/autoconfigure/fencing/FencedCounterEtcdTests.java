package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockLostException;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * Two application instances increment one counter under {@code @DistributedLock} through their
 * fenced data sources, on a real etcd and a real database, while their connections to etcd are
 * frozen at random moments for longer than the lease. Whatever the lock does, the database must
 * never accept a write from a replaced holder: every committed increment read the previous one
 * (no lost update), a call was acknowledged exactly when it committed, and committed tokens only
 * grow.
 */
class FencedCounterEtcdTests {

    private static final Logger logger = LoggerFactory.getLogger(FencedCounterEtcdTests.class);

    private static final int THREADS_PER_INSTANCE = 3;

    private static final int CALLS_PER_THREAD = 15;

    private static final int MAX_FAULTS = 3;

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void counterShouldCountEveryCommittedIncrementDespiteLeaseLosses(TestDatabase database) throws Exception {
        DataSource raw = database.dataSource();
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Tables tables = new Tables(database, suffix);
        JdbcTemplate jdbc = new JdbcTemplate(raw);
        tables.create(jdbc);
        List<FaultProxy> proxies = List.of(
                FaultProxy.forEndpoint(etcd.endpoints().get(0)),
                FaultProxy.forEndpoint(etcd.endpoints().get(0)));
        Outcomes outcomes = new Outcomes();
        try {
            ApplicationContextRunner runner = new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            AopAutoConfiguration.class,
                            FenceLockEtcdAutoConfiguration.class,
                            FenceLockAutoConfiguration.class,
                            FenceLockFencingAutoConfiguration.class))
                    .withUserConfiguration(CounterConfiguration.class)
                    .withBean(Tables.class, () -> tables)
                    .withBean("dataSource", DataSource.class, database::dataSource)
                    .withPropertyValues(
                            "fencelock.lease-ttl=2s",
                            "fencelock.fencing.jdbc.table=" + tables.fence,
                            "fencelock.fencing.jdbc.initialize-schema=always");
            runner.withPropertyValues(
                            "fencelock.etcd.endpoints=" + proxies.get(0).endpoint())
                    .run((first) -> runner.withPropertyValues(
                                    "fencelock.etcd.endpoints=" + proxies.get(1).endpoint())
                            .run((second) -> contend(List.of(first, second), proxies, outcomes, suffix)));
            long counter = jdbc.queryForObject("select val from " + tables.counter + " where id = 1", Long.class);
            List<String> committedCalls =
                    jdbc.queryForList("select call_id from " + tables.log + " order by seq", String.class);
            List<Long> committedTokens =
                    jdbc.queryForList("select token from " + tables.log + " order by seq", Long.class);
            Set<String> committedButNotAcknowledged = new java.util.HashSet<>(committedCalls);
            committedButNotAcknowledged.removeAll(outcomes.acknowledged);
            logger.info(
                    "{}: {} calls, acknowledged {}, lost {} (of which committed {}),"
                            + " refused by the fence {}, not acquired {}, faults {}, other {}; counter {}",
                    database,
                    outcomes.calls.get(),
                    outcomes.acknowledged.size(),
                    outcomes.lost.size(),
                    committedButNotAcknowledged.size(),
                    outcomes.rejected.get(),
                    outcomes.notAcquired,
                    outcomes.faults.get(),
                    outcomes.other,
                    counter);
            // No lost update: each committed increment read the value the previous one wrote.
            assertThat(counter).isEqualTo(committedCalls.size());
            assertThat(committedCalls).doesNotHaveDuplicates().containsAll(outcomes.acknowledged);
            // Every call that committed was acknowledged: a loss before the commit rolls the call back,
            // a loss after it leaves the result standing. A caller told "lost" can call again safely.
            assertThat(committedButNotAcknowledged).isEmpty();
            assertThat(counter).isEqualTo(outcomes.acknowledged.size());
            assertThat(committedTokens).isSorted();
            assertThat(outcomes.other).isEmpty();
            assertThat(outcomes.faults.get()).isPositive();
            assertThat(outcomes.acknowledged).isNotEmpty();
        } finally {
            proxies.forEach(FaultProxy::close);
            tables.drop(jdbc);
        }
    }

    private void contend(List<ApplicationContext> contexts, List<FaultProxy> proxies, Outcomes outcomes, String suffix)
            throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(contexts.size() * THREADS_PER_INSTANCE + 1);
        AtomicBoolean done = new AtomicBoolean();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < contexts.size(); c++) {
                CounterService service = contexts.get(c).getBean(CounterService.class);
                Instance state = contexts.get(c).getBean(Instance.class);
                String instance = "instance-" + c;
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    workers.add(executor.submit(() -> {
                        start.await();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        int entered = 0;
                        while (entered < CALLS_PER_THREAD && System.nanoTime() < deadline) {
                            if (call(service, state, "counter:" + suffix, instance, outcomes)) {
                                entered++;
                            } else {
                                // Not acquired: this instance is cut off from etcd; retry shortly.
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                            }
                        }
                        return null;
                    }));
                }
            }
            List<Instance> services = contexts.stream()
                    .map((context) -> context.getBean(Instance.class))
                    .toList();
            Future<?> chaos = executor.submit(() -> {
                freezeAtRandom(proxies, services, done, outcomes);
                return null;
            });
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            done.set(true);
            chaos.get(10, TimeUnit.SECONDS);
        } finally {
            done.set(true);
            proxies.forEach(FaultProxy::restore);
            executor.shutdownNow();
        }
    }

    /** One call; {@code false} when the lock could not be acquired (the method did not run). */
    private static boolean call(
            CounterService service, Instance state, String lock, String instance, Outcomes outcomes) {
        String callId = UUID.randomUUID().toString();
        outcomes.calls.incrementAndGet();
        try {
            service.increment(lock, instance, callId);
            outcomes.acknowledged.add(callId);
            state.acknowledged.incrementAndGet();
        } catch (LockLostException ex) {
            outcomes.lost.add(callId);
            if (refused(ex)) {
                outcomes.rejected.incrementAndGet();
            }
        } catch (FencingTokenRejectedException ex) {
            outcomes.lost.add(callId);
            outcomes.rejected.incrementAndGet();
        } catch (dev.fencelock.LockAcquisitionTimeoutException | dev.fencelock.LockBackendUnavailableException ex) {
            String message = String.valueOf(ex.getMessage());
            String kind = ex.getClass().getSimpleName() + ": " + message.substring(0, Math.min(60, message.length()));
            if (outcomes.notAcquired.merge(kind, 1, Integer::sum) == 1) {
                logger.info("{} not acquired", instance, ex);
            }
            return false;
        } catch (RuntimeException ex) {
            outcomes.other.merge(ex.getClass().getName() + ": " + ex.getMessage(), 1, Integer::sum);
        }
        return true;
    }

    private static boolean refused(Throwable ex) {
        for (Throwable suppressed : ex.getSuppressed()) {
            for (Throwable cause = suppressed; cause != null; cause = cause.getCause()) {
                if (cause instanceof FencingTokenRejectedException) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Freezes one instance's etcd traffic for longer than the 2s lease, again and again, and pauses
     * its next lock holder between read and write as a GC pause would.
     */
    private static void freezeAtRandom(
            List<FaultProxy> proxies, List<Instance> services, AtomicBoolean done, Outcomes outcomes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!done.get() && outcomes.faults.get() < MAX_FAULTS) {
            pause(done, Duration.ofMillis(random.nextLong(300, 1500)));
            if (done.get()) {
                return;
            }
            int instance = random.nextInt(proxies.size());
            Instance state = services.get(instance);
            CountDownLatch stalled = new CountDownLatch(1);
            state.stalled = stalled;
            state.pauseNext = true;
            // Freeze the instance while one of its threads holds the lock and stalls mid-transaction,
            // the zombie case; if none gets the lock in time, freeze it anyway (waiters time out).
            await(stalled, done, Duration.ofSeconds(5));
            proxies.get(instance).blackhole();
            outcomes.faults.incrementAndGet();
            pause(done, Duration.ofMillis(random.nextLong(3000, 4000)));
            state.pauseNext = false;
            int before = services.get(instance).acknowledged.get();
            proxies.get(instance).restore();
            // Let the instance come back (new etcd session) before the next fault, on a busy machine too.
            long recovered = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!done.get()
                    && services.get(instance).acknowledged.get() == before
                    && System.nanoTime() < recovered) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    private static void await(CountDownLatch latch, AtomicBoolean done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!done.get() && System.nanoTime() < deadline && !latch.await(50, TimeUnit.MILLISECONDS)) {
                // until the holder stalls, the workers finish, or the timeout passes
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A bounded random delay of the fault schedule; ends early once the workers are done. */
    private static void pause(AtomicBoolean done, Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        while (!done.get() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(Math.min(50_000_000L, deadline - System.nanoTime()));
        }
    }

    static final class Outcomes {

        final AtomicInteger calls = new AtomicInteger();

        final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

        final Set<String> lost = ConcurrentHashMap.newKeySet();

        final AtomicInteger rejected = new AtomicInteger();

        final Map<String, Integer> notAcquired = new ConcurrentHashMap<>();

        final AtomicInteger faults = new AtomicInteger();

        final Map<String, Integer> other = new ConcurrentHashMap<>();
    }

    /** The counter, its commit log and the fence table of one test run. */
    static final class Tables {

        final TestDatabase database;

        final String counter;

        final String log;

        final String fence;

        Tables(TestDatabase database, String suffix) {
            this.database = database;
            this.counter = "counter_" + suffix;
            this.log = "counter_log_" + suffix;
            this.fence = "fence_" + suffix;
        }

        void create(JdbcTemplate jdbc) {
            jdbc.execute("create table " + this.counter + " (id int primary key, val bigint not null)");
            jdbc.update("insert into " + this.counter + " (id, val) values (1, 0)");
            String sequence = (this.database == TestDatabase.POSTGRESQL)
                    ? "bigserial primary key"
                    : "bigint auto_increment primary key";
            jdbc.execute("create table " + this.log + " (seq " + sequence
                    + ", token bigint not null, call_id varchar(40) not null, instance varchar(20) not null)");
        }

        void drop(JdbcTemplate jdbc) {
            for (String table : List.of(this.counter, this.log, this.fence)) {
                jdbc.execute("drop table if exists " + table);
            }
        }
    }

    /** What the fault schedule knows about one application instance (not proxied, unlike the service). */
    static final class Instance {

        /** Set by the fault schedule: the next holder stalls after its read, like a paused process. */
        volatile boolean pauseNext;

        /** Counted down when a holder starts to stall. */
        volatile CountDownLatch stalled = new CountDownLatch(0);

        final AtomicInteger acknowledged = new AtomicInteger();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class CounterConfiguration {

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Instance instance() {
            return new Instance();
        }

        @Bean
        CounterService counterService(DataSource dataSource, Tables tables, Instance instance) {
            return new CounterService(new JdbcTemplate(dataSource), tables, instance);
        }
    }

    public static class CounterService {

        private final JdbcTemplate jdbc;

        private final Tables tables;

        private final Instance instance;

        CounterService(JdbcTemplate jdbc, Tables tables, Instance instance) {
            this.jdbc = jdbc;
            this.tables = tables;
            this.instance = instance;
        }

        /** Read, think, write: a lost update if two holders ever overlapped. */
        @DistributedLock(key = "#lock", waitTimeout = "15s")
        @Transactional
        public long increment(String lock, String instance, String callId) {
            long value =
                    this.jdbc.queryForObject("select val from " + this.tables.counter + " where id = 1", Long.class);
            if (this.instance.pauseNext) {
                this.instance.pauseNext = false;
                this.instance.stalled.countDown();
                // Past the 2s lease; the interrupt of a lost lock (interrupt-on-lost) ends it early.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3500));
            } else {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(
                        ThreadLocalRandom.current().nextLong(5, 40)));
            }
            this.jdbc.update("update " + this.tables.counter + " set val = ? where id = 1", value + 1);
            this.jdbc.update(
                    "insert into " + this.tables.log + " (token, call_id, instance) values (?, ?, ?)",
                    FencingContext.current().orElseThrow().token(),
                    callId,
                    instance);
            return value + 1;
        }
    }
}
