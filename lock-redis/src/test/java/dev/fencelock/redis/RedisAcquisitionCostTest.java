package dev.fencelock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.redis.RedisServer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an uncontended lock cycle costs the server: one script to acquire (write the entry, take a
 * token, read what is ahead) and one to release. Counted on the server, so a slow machine cannot
 * change the answer; the round-trip times are logged for the docs, never asserted.
 */
class RedisAcquisitionCostTest {

    private static final Logger logger = LoggerFactory.getLogger(RedisAcquisitionCostTest.class);

    private static final int CYCLES = 2_000;

    @Test
    void anUncontendedCycleCostsTheServerTwoScripts() {
        try (RedisServer server = RedisServer.start();
                LockClient client = LockClient.builder(
                                RedisLockBackend.builder().uri(server.uri()).build())
                        .build()) {
            for (int i = 0; i < 200; i++) {
                client.acquire(LockRequest.of("warm-up:" + i)).release();
            }
            long before = scripts(server);
            long[] acquireNanos = new long[CYCLES];
            long[] cycleNanos = new long[CYCLES];
            for (int i = 0; i < CYCLES; i++) {
                long start = System.nanoTime();
                LockLease lease = client.acquire(LockRequest.of("cost:" + (i % 500)));
                acquireNanos[i] = System.nanoTime() - start;
                lease.release();
                cycleNanos[i] = System.nanoTime() - start;
            }
            long perCycle = scripts(server) - before;
            assertThat(perCycle).as("scripts for %d cycles", CYCLES).isEqualTo(2L * CYCLES);
            logger.info(
                    "{} uncontended cycles on one thread: acquire p50 {} µs, p99 {} µs; acquire+release p50 {} µs,"
                            + " p99 {} µs; {} scripts per cycle",
                    CYCLES,
                    percentile(acquireNanos, 50),
                    percentile(acquireNanos, 99),
                    percentile(cycleNanos, 50),
                    percentile(cycleNanos, 99),
                    perCycle / CYCLES);
        }
    }

    private static long percentile(long[] nanos, int percent) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)] / 1_000;
    }

    private static long scripts(RedisServer server) {
        long calls = 0;
        for (String line : server.command("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String stats = line.substring(line.indexOf(':') + 1);
                calls += Long.parseLong(stats.substring(stats.indexOf("calls=") + 6, stats.indexOf(',')));
            }
        }
        return calls;
    }
}
