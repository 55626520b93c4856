package dev.fencelock.benchmarks;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client heap per held lock: used heap after a full GC with N locks held, minus the same before
 * they were acquired, divided by N. Includes everything the client keeps per lock (its entry,
 * the lease handle, the backend's lock record, map nodes, key strings); the array the benchmark keeps the
 * leases in exists before the first reading.
 */
public final class HeapPerLock {

    private static final Logger logger = LoggerFactory.getLogger(HeapPerLock.class);

    private HeapPerLock() {}

    public static double measure(BenchEnvironment env, int locks) throws Exception {
        try (Systems.FenceLockSystem system = Systems.fenceLock(env.endpoints(), "/bench-heap")) {
            LockClient client = system.client();
            // Warm up: class loading, session lease, connection, JIT-compiled paths.
            for (int i = 0; i < 200; i++) {
                client.acquire(LockRequest.of("warm-" + i)).release();
            }
            LockLease[] leases = new LockLease[locks];
            long before = usedHeapAfterGc();
            Semaphore inFlight = new Semaphore(256);
            Map<Integer, Throwable> failures = new ConcurrentHashMap<>();
            CompletableFuture<?>[] all = new CompletableFuture<?>[locks];
            for (int i = 0; i < locks; i++) {
                inFlight.acquire();
                int index = i;
                all[i] = client.acquireAsync(LockRequest.of("heap-" + i)).whenComplete((lease, failure) -> {
                    inFlight.release();
                    if (failure != null) {
                        failures.put(index, failure);
                    } else {
                        leases[index] = lease;
                    }
                });
            }
            CompletableFuture.allOf(all).handle((v, f) -> null).get(5, TimeUnit.MINUTES);
            all = null;
            long after = usedHeapAfterGc();
            int held = client.heldCount();
            double perLock = (after - before) / (double) held;
            logger.info(
                    "Heap: {} locks held ({} failed), used heap {} -> {} bytes, {} bytes per lock",
                    held,
                    failures.size(),
                    before,
                    after,
                    Math.round(perLock));
            Map<Integer, LockLease> toRelease = new ConcurrentHashMap<>();
            for (int i = 0; i < locks; i++) {
                if (leases[i] != null) {
                    toRelease.put(i, leases[i]);
                }
            }
            DesignWorkloadScenario.releaseAll(toRelease);
            return perLock;
        }
    }

    static long usedHeapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(150);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
