package dev.fencelock.redis;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.ResourceName;
import dev.fencelock.test.contract.LockBackendContract;
import dev.fencelock.test.redis.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Redis backend against a real redis-server: the same contract as etcd, except that its tokens do not fence. */
class RedisLockBackendContractTest extends LockBackendContract {

    private static RedisServer server;

    private static RedisLockBackend observer;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
        observer = RedisLockBackend.builder().uri(server.uri()).build();
    }

    @AfterAll
    static void stopServer() {
        if (observer != null) {
            observer.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        LockClientBuilder builder =
                LockClient.builder(RedisLockBackend.builder().uri(server.uri()).build());
        customizer.accept(builder);
        return builder.build();
    }

    @Override
    protected void freezeRenewals(LockClient client) {
        ((RedisLockBackend) client.backend()).pauseRenewals();
    }

    @Override
    protected int keysOf(String resource) {
        try {
            return observer.queue(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                    .get(30, TimeUnit.SECONDS)
                    .size();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not count the entries of " + resource, ex);
        }
    }

    @Override
    protected boolean issuesFencingTokens() {
        return false;
    }

    @Override
    protected Duration shortLeaseTtl() {
        return Duration.ofSeconds(1);
    }

    @Override
    protected int fuzzIterations() {
        return 100;
    }
}
