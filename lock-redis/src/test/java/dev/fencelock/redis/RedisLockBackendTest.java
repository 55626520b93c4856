package dev.fencelock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.redis.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the Redis backend does beyond the contract: how it waits, and how it lays out keys. */
class RedisLockBackendTest {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aWaiterSendsNothingWhileTheHolderKeepsTheLockAndWakesOnTheRelease() throws Exception {
        try (LockClient holder = client();
                LockClient waiter = client()) {
            LockLease held = holder.acquire(
                    LockRequest.builder("poll").leaseTtl(Duration.ofSeconds(30)).build());
            CompletableFuture<LockLease> next = waiter.acquireAsync(LockRequest.builder("poll")
                    .leaseTtl(Duration.ofSeconds(30))
                    .waitTimeout(Duration.ofSeconds(60))
                    .build());
            await().atMost(Duration.ofSeconds(30)).until(() -> entries(waiter, "poll") == 2);
            long before = scriptCalls();
            // Measuring that nothing happens takes a stretch of time: 3 s, a tenth of the TTL, so no
            // renewal (every 10 s) falls inside it on a machine that is on time; a polling waiter would
            // have sent many reads in it.
            Thread.sleep(3_000);
            long during = scriptCalls() - before;
            assertThat(during).as("scripts run while the waiter waited").isLessThanOrEqualTo(2);
            held.release();
            LockLease granted = next.get(30, TimeUnit.SECONDS);
            assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
            granted.release();
        }
    }

    @Test
    void resourcesThatEscapeAlikeAreStillDistinctLocks() {
        try (LockClient a = client();
                LockClient b = client()) {
            LockLease colon = a.acquire(LockRequest.of("a:b"));
            assertThat(b.tryAcquire("a%3Ab")).isPresent().get().satisfies(LockLease::release);
            assertThat(b.tryAcquire("{a:b}")).isPresent().get().satisfies(LockLease::release);
            assertThat(b.tryAcquire("a:b")).isEmpty();
            colon.release();
        }
    }

    @Test
    void leasesSayTheirTokensDoNotFenceAndHealthSaysSoToo() throws Exception {
        try (LockClient a = client();
                LockLease lease = a.acquire(LockRequest.of("label"))) {
            assertThat(lease.isFencing()).isFalse();
            assertThat(a.backend().describe()).contains("not fencing");
            var health = a.administration()
                    .orElseThrow()
                    .health(Duration.ofSeconds(5))
                    .get(30, TimeUnit.SECONDS);
            assertThat(health.up()).isTrue();
            assertThat(health.details()).containsEntry("fencingTokens", false).containsEntry("role", "master");
        }
    }

    private static LockClient client() {
        return LockClient.builder(RedisLockBackend.builder().uri(server.uri()).build())
                .build();
    }

    private static int entries(LockClient client, String resource) throws Exception {
        return client.administration()
                .orElseThrow()
                .queue(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                .get(30, TimeUnit.SECONDS)
                .size();
    }

    /** Scripts the server ran so far, by digest or by text. */
    private static long scriptCalls() {
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
