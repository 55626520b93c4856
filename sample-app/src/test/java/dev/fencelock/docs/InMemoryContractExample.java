package dev.fencelock.docs;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import dev.fencelock.test.contract.LockBackendContract;
import java.util.function.Consumer;

/**
 * docs/testing.md, "The backend contract". Not named like a test on purpose: lock-test already
 * runs the contract against the in-memory backend; this class only keeps the snippet compiling.
 */
class InMemoryContractExample extends LockBackendContract {

    private static final InMemoryLockStore store = new InMemoryLockStore();

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
        return store.keysOf(resource).size();
    }
}
