package dev.fencelock.test.contract;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * What every contract test needs: the hooks a backend's test supplies, the clients a test creates
 * (closed after it), and resource names unique to the test. Extend {@link LockBackendContract},
 * not this class.
 */
public abstract class LockBackendContractSupport {

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    private String prefix = "t";

    LockBackendContractSupport() {}

    /**
     * A new client on the shared store, as a separate application instance would have. The
     * customizer adjusts the client's settings.
     */
    protected abstract LockClient createClient(Consumer<LockClientBuilder> customizer);

    /** Makes {@code client} stop renewing its leases, as if its process froze; it cannot reach the store. */
    protected abstract void freezeRenewals(LockClient client);

    /** Number of keys (holders and waiters) the store has for {@code resource}. */
    protected abstract int keysOf(String resource);

    /** The shortest lease TTL the store honours quickly; etcd's minimum is about two seconds. */
    protected Duration shortLeaseTtl() {
        return Duration.ofSeconds(2);
    }

    /**
     * The share of a lease's TTL for which a holder trusts its lock at least, from the moment it
     * asked: 0.9 where the store's lease runs from the renewal's arrival (etcd: a tenth is kept as
     * a margin); less where the store learns of a renewal later (ZooKeeper).
     */
    protected double leaseTrustedShare() {
        return 0.9;
    }

    /**
     * How long the store may take for anything these tests await: a give-up time for a loaded
     * machine, never a measure of speed (what must happen is awaited, and ends the wait when it does).
     */
    protected Duration patience() {
        return Duration.ofSeconds(30);
    }

    /**
     * Whether the store's tokens are fencing tokens, larger for every new holder even across the
     * store's own failures (etcd, in-memory: yes). A store that can hand a lock and its token out
     * twice after a failover (Redis) answers {@code false}; the kit then checks that its leases say
     * so, instead of trusting them with what only a fencing store can promise.
     */
    protected boolean issuesFencingTokens() {
        return true;
    }

    /** Lock cycles per thread in the mutual-exclusion fuzz. */
    protected int fuzzIterations() {
        return 40;
    }

    @BeforeEach
    void namePrefix(TestInfo info) {
        this.prefix = info.getTestMethod().map(m -> m.getName()).orElse("t") + "-" + System.nanoTime();
    }

    @AfterEach
    void closeClients() {
        beforeClientsClose();
        this.clients.forEach(LockClient::close);
        this.clients.clear();
        afterClientsClosed();
    }

    /** Runs before the test's clients close; undo faults here so they can release their leases. */
    protected void beforeClientsClose() {}

    /** Runs after the test's clients closed; stop per-test infrastructure here. */
    protected void afterClientsClosed() {}

    protected final LockClient client() {
        return client(builder -> {});
    }

    protected final LockClient client(Consumer<LockClientBuilder> customizer) {
        LockClient client = createClient(customizer);
        this.clients.add(client);
        return client;
    }

    protected final String resource(String name) {
        return this.prefix + ":" + name;
    }
}
