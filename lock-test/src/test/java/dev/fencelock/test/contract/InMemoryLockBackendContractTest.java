package dev.fencelock.test.contract;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;

/** The in-memory backend passes the same contract as etcd. */
class InMemoryLockBackendContractTest extends LockBackendContract {

    private static final InMemoryLockStore store = new InMemoryLockStore();

    @AfterAll
    static void closeStore() {
        store.close();
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        LockClientBuilder builder = LockClient.builder(InMemoryLockBackend.sharing(store));
        customizer.accept(builder);
        return builder.build();
    }

    @Override
    protected void freezeRenewals(LockClient client) {
        ((InMemoryLockBackend) client.backend()).pauseRenewals();
    }

    @Override
    protected int keysOf(String resource) {
        return store.keysOf(java.text.Normalizer.normalize(resource, java.text.Normalizer.Form.NFC))
                .size();
    }

    @Override
    protected Duration shortLeaseTtl() {
        return Duration.ofSeconds(1);
    }

    @Override
    protected int fuzzIterations() {
        return 300;
    }
}
