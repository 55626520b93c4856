package dev.fencelock.benchmarks;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A light contended load beside scenario 5's workload, there to check safety where compaction can
 * hurt: waiters are woken by watches, and a watch that resumes from a compacted revision must not
 * miss a hand-off or grant twice. Two workers on each of two clients loop on two keys (acquire,
 * hold 10 ms, release, pause 40 ms: about 50 acquisitions/s in all, 2.5% of the workload's), and
 * every grant checks that no other worker holds the key and that its fencing token is larger than
 * the key's previous one.
 */
final class ContendedKeysCheck implements AutoCloseable {

    private static final int KEYS = 2;

    private static final int WORKERS_PER_CLIENT = 2;

    private static final Duration WAIT = Duration.ofSeconds(5);

    /**
     * What the check saw.
     *
     * @param acquisitions grants
     * @param failures acquisitions or releases that failed (a timeout, etcd unavailable)
     * @param doubleHolders grants of a key another worker still held
     * @param tokenRegressions grants whose token was not larger than the key's previous one
     */
    record Result(long acquisitions, long failures, long doubleHolders, long tokenRegressions) {}

    private final List<Systems.FenceLockSystem> clients = new ArrayList<>();

    private final List<Thread> threads = new ArrayList<>();

    private final AtomicInteger[] holders = new AtomicInteger[KEYS];

    private final AtomicLongArray lastToken = new AtomicLongArray(KEYS);

    private final AtomicLong acquisitions = new AtomicLong();

    private final AtomicLong failures = new AtomicLong();

    private final AtomicLong doubleHolders = new AtomicLong();

    private final AtomicLong tokenRegressions = new AtomicLong();

    private final AtomicBoolean stop = new AtomicBoolean();

    ContendedKeysCheck(List<String> endpoints, String namespace) {
        for (int i = 0; i < KEYS; i++) {
            this.holders[i] = new AtomicInteger();
        }
        for (int c = 0; c < 2; c++) {
            Systems.FenceLockSystem system = Systems.fenceLock(endpoints, namespace);
            this.clients.add(system);
            for (int w = 0; w < WORKERS_PER_CLIENT; w++) {
                int id = c * WORKERS_PER_CLIENT + w + 1;
                this.threads.add(new Thread(() -> loop(system.client(), id), "bench-s5-check-" + id));
            }
        }
    }

    void start() {
        this.threads.forEach(Thread::start);
    }

    private void loop(LockClient client, int id) {
        while (!this.stop.get()) {
            int key = ThreadLocalRandom.current().nextInt(KEYS);
            LockLease lease;
            try {
                lease = client.acquire(LockRequest.builder("contended-" + key)
                        .waitTimeout(WAIT)
                        .build());
            } catch (LockException ex) {
                this.failures.incrementAndGet();
                pause(40);
                continue;
            }
            this.acquisitions.incrementAndGet();
            boolean claimed = this.holders[key].compareAndSet(0, id);
            if (!claimed) {
                this.doubleHolders.incrementAndGet();
            }
            if (this.lastToken.getAndAccumulate(key, lease.fencingToken(), Math::max) >= lease.fencingToken()) {
                this.tokenRegressions.incrementAndGet();
            }
            pause(10);
            if (claimed) {
                this.holders[key].set(0);
            }
            try {
                lease.release();
            } catch (LockException ex) {
                this.failures.incrementAndGet();
            }
            pause(40);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the workers (each finishes its current cycle) and returns what they saw. */
    Result stop() throws InterruptedException {
        this.stop.set(true);
        for (Thread thread : this.threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        return new Result(
                this.acquisitions.get(), this.failures.get(), this.doubleHolders.get(), this.tokenRegressions.get());
    }

    @Override
    public void close() {
        this.stop.set(true);
        this.clients.forEach(Systems.FenceLockSystem::close);
    }
}
