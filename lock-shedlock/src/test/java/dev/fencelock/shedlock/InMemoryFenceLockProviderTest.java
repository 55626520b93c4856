package dev.fencelock.shedlock;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;

/** The ShedLock provider on the in-memory backend, two "instances" sharing one store. */
class InMemoryFenceLockProviderTest extends FenceLockProviderContract {

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
    protected int fuzzIterations() {
        return 300;
    }
}
