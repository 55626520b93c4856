package dev.fencelock.benchmarks;

import dev.fencelock.LockLease;
import dev.fencelock.test.etcd.EtcdMember;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 4: FenceLock under load (workers contending on a few keys) while the etcd leader is
 * killed with SIGKILL. Measures the time from the kill to the first acquisition that was
 * <em>started after</em> the kill and succeeded, and checks on every acquisition that no one else
 * holds the key and that its fencing token is larger than every earlier one for that key.
 */
public final class FailoverScenario {

    private static final Logger logger = LoggerFactory.getLogger(FailoverScenario.class);

    private static final int WORKERS = 16;

    private static final int KEYS = 4;

    private static final Duration WAIT = Duration.ofSeconds(5);

    private FailoverScenario() {}

    /**
     * What scenario 4 measured.
     *
     * @param killed the member that was leader and was killed
     * @param recoveryMillis kill → first success of an acquisition started after the kill
     * @param longestGapMillis longest time without any successful acquisition around the kill
     * @param before acquisitions/s before the kill
     * @param after acquisitions/s after recovery
     * @param errors acquisitions that failed (timeout or unavailable)
     * @param acquisitions successful acquisitions in total
     * @param doubleHolders acquisitions that found another holder
     * @param tokenRegressions acquisitions whose token was not larger than the previous one of the key
     */
    public record Result(
            String killed,
            double recoveryMillis,
            double longestGapMillis,
            double before,
            double after,
            long errors,
            long acquisitions,
            long doubleHolders,
            long tokenRegressions) {}

    public static Result run(BenchEnvironment env, BenchSettings settings) throws Exception {
        try (Systems.FenceLockSystem system = Systems.fenceLock(env.endpoints(), "/bench-s4")) {
            AtomicIntegerArrayHolder holders = new AtomicIntegerArrayHolder(KEYS);
            AtomicLongArray lastToken = new AtomicLongArray(KEYS);
            AtomicLongArray heldTokens = new AtomicLongArray(KEYS);
            AtomicReferenceArray<LockSystem.Held> current = new AtomicReferenceArray<>(KEYS);
            AtomicLong doubleHolders = new AtomicLong();
            AtomicLong regressions = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicLong acquisitions = new AtomicLong();
            AtomicLong killNanos = new AtomicLong(Long.MAX_VALUE);
            AtomicLong firstAfterKill = new AtomicLong(Long.MAX_VALUE);
            AtomicLong lastSuccess = new AtomicLong(System.nanoTime());
            AtomicLong longestGap = new AtomicLong();
            AtomicLong beforeCount = new AtomicLong();
            AtomicLong afterCount = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                LockSystem.Worker worker = system.newWorker();
                int id = i + 1;
                threads.add(new Thread(
                        () -> {
                            while (!stop.get()) {
                                int key = ThreadLocalRandom.current().nextInt(KEYS);
                                long started = System.nanoTime();
                                LockSystem.Held held;
                                try {
                                    held = worker.acquire("failover-" + key, WAIT);
                                } catch (Exception ex) {
                                    errors.incrementAndGet();
                                    HotKeyScenario.sleepQuietly(20);
                                    continue;
                                }
                                long now = System.nanoTime();
                                acquisitions.incrementAndGet();
                                if (!holders.claim(key, id)) {
                                    doubleHolders.incrementAndGet();
                                    logger.warn(
                                            "Double holder of failover-{}: worker {} got token {} at {} ms after the"
                                                    + " kill while worker {} holds token {}",
                                            key,
                                            id,
                                            held.token(),
                                            (now - killNanos.get()) / 1_000_000,
                                            holders.holder(key),
                                            heldTokens.get(key));
                                    LockSystem.Held other = current.get(key);
                                    if (other != null) {
                                        logger.warn("Holder of token {}: {}", other.token(), describe(system, other));
                                    }
                                } else {
                                    heldTokens.set(key, held.token());
                                    current.set(key, held);
                                }
                                long previous = lastToken.getAndAccumulate(key, held.token(), Math::max);
                                if (held.token() <= previous) {
                                    regressions.incrementAndGet();
                                }
                                long gap = now - lastSuccess.getAndAccumulate(now, Math::max);
                                longestGap.accumulateAndGet(gap, Math::max);
                                long kill = killNanos.get();
                                if (started - kill >= 0) {
                                    firstAfterKill.accumulateAndGet(now, Math::min);
                                    afterCount.incrementAndGet();
                                } else if (kill == Long.MAX_VALUE) {
                                    beforeCount.incrementAndGet();
                                }
                                HotKeyScenario.sleepQuietly(2);
                                holders.free(key, id);
                                try {
                                    worker.release(held);
                                } catch (Exception ex) {
                                    errors.incrementAndGet();
                                }
                            }
                        },
                        "bench-s4-" + i));
            }
            long started = System.nanoTime();
            threads.forEach(Thread::start);
            Thread.sleep(settings.failoverBefore().toMillis());
            double beforeSeconds = (System.nanoTime() - started) / 1e9;
            EtcdMember leader = env.etcd().leader();
            logger.info("Scenario 4: killing leader {}", leader.name());
            killNanos.set(System.nanoTime());
            leader.kill();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (firstAfterKill.get() == Long.MAX_VALUE && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long recovered = firstAfterKill.get();
            long afterStart = System.nanoTime();
            long afterBase = afterCount.get();
            Thread.sleep(settings.failoverAfter().toMillis());
            double afterRate = (afterCount.get() - afterBase) / ((System.nanoTime() - afterStart) / 1e9);
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            leader.restart();
            Result result = new Result(
                    leader.name(),
                    recovered == Long.MAX_VALUE ? Double.NaN : (recovered - killNanos.get()) / 1e6,
                    longestGap.get() / 1e6,
                    beforeCount.get() / beforeSeconds,
                    afterRate,
                    errors.get(),
                    acquisitions.get(),
                    doubleHolders.get(),
                    regressions.get());
            logger.info("Scenario 4: {}", result);
            return result;
        }
    }

    /** What etcd says about a lease a worker believes it holds, for the log of a double holder. */
    private static String describe(Systems.FenceLockSystem system, LockSystem.Held held) {
        LockLease lease = (LockLease) held.handle();
        String prefix = system.backend().resourcePrefix(lease.resource());
        try {
            var keys = system.backend()
                    .client()
                    .getKVClient()
                    .get(
                            ByteSequence.from(prefix, StandardCharsets.UTF_8),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withKeysOnly(true)
                                    .build())
                    .get(2, TimeUnit.SECONDS)
                    .getKvs();
            StringBuilder text = new StringBuilder("requestId " + lease.requestId() + ", valid " + lease.isValid()
                    + "; keys of the resource in etcd now:");
            keys.forEach(kv -> text.append(' ')
                    .append(kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()))
                    .append("@")
                    .append(kv.getCreateRevision()));
            return text.toString();
        } catch (Exception ex) {
            return "requestId " + lease.requestId() + ", valid " + lease.isValid() + "; etcd read failed: " + ex;
        }
    }

    /** Who holds each key, as seen by the workers. */
    private static final class AtomicIntegerArrayHolder {

        private final AtomicInteger[] holders;

        AtomicIntegerArrayHolder(int keys) {
            this.holders = new AtomicInteger[keys];
            for (int i = 0; i < keys; i++) {
                this.holders[i] = new AtomicInteger();
            }
        }

        boolean claim(int key, int id) {
            return this.holders[key].compareAndSet(0, id);
        }

        int holder(int key) {
            return this.holders[key].get();
        }

        void free(int key, int id) {
            this.holders[key].compareAndSet(id, 0);
        }
    }
}
