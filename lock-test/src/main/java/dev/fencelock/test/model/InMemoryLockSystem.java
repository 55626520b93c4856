package dev.fencelock.test.model;

import dev.fencelock.LockClient;
import dev.fencelock.ResourceName;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Three clients over {@link InMemoryLockBackend}s that share one {@link InMemoryLockStore}, a
 * fresh store per script. An expiry is {@link InMemoryLockBackend#pauseRenewals()}; there are no
 * faults.
 */
public final class InMemoryLockSystem implements LockSystem {

    private final boolean shared;

    public InMemoryLockSystem() {
        this(true);
    }

    private InMemoryLockSystem(boolean shared) {
        this.shared = shared;
    }

    /**
     * A broken lock for checking the checker: each client gets a store of its own, so no client
     * excludes another. The store the checks read is the first client's.
     */
    static InMemoryLockSystem withoutMutualExclusion() {
        return new InMemoryLockSystem(false);
    }

    @Override
    public String describe() {
        return this.shared ? "in-memory" : "in-memory without mutual exclusion";
    }

    @Override
    public int members() {
        return 0;
    }

    @Override
    public Duration leaseTtl() {
        return Duration.ofSeconds(1);
    }

    @Override
    public Duration sessionValidity() {
        return leaseTtl();
    }

    @Override
    public Duration settleTimeout() {
        return Duration.ofSeconds(10); // a give-up time
    }

    @Override
    public Run start(String runId) {
        return new MemoryRun();
    }

    private final class MemoryRun implements Run, StoreView {

        /** One store shared by every client, or one per client when mutual exclusion is broken on purpose. */
        private final List<InMemoryLockStore> stores = new ArrayList<>();

        private final List<InMemoryLockBackend> backends = new ArrayList<>();

        private final List<LockClient> clients = new ArrayList<>();

        /** Read queues for the checks, one per store; they never acquire anything. */
        private final List<InMemoryLockBackend> observers = new ArrayList<>();

        MemoryRun() {
            for (int i = 0; i < StepGenerator.CLIENTS; i++) {
                if (i == 0 || !shared) {
                    InMemoryLockStore store = new InMemoryLockStore();
                    this.stores.add(store);
                    this.observers.add(InMemoryLockBackend.sharing(store));
                }
                InMemoryLockBackend backend = InMemoryLockBackend.sharing(this.stores.get(this.stores.size() - 1));
                this.backends.add(backend);
                this.clients.add(ModelClients.configure(LockClient.builder(backend), leaseTtl())
                        .build());
            }
        }

        @Override
        public List<LockClient> clients() {
            return this.clients;
        }

        @Override
        public StoreView store() {
            return this;
        }

        @Override
        public Map<String, List<StoredKey>> locks() {
            Map<String, List<StoredKey>> locks = new LinkedHashMap<>();
            int seen = 0;
            for (int r = 0; r < StepGenerator.RESOURCES; r++) {
                String resource = "r" + r;
                List<StoredKey> keys = new ArrayList<>();
                for (InMemoryLockBackend observer : this.observers) {
                    for (QueueEntry entry : queue(observer, resource)) {
                        keys.add(new StoredKey(entry.requestId(), entry.fencingToken(), entry.leaseId(), null));
                    }
                }
                keys.sort(Comparator.comparingLong(StoredKey::createRevision));
                seen += keys.size();
                if (!keys.isEmpty()) {
                    locks.put(resource, keys);
                }
            }
            int stray =
                    this.stores.stream().mapToInt(InMemoryLockStore::keyCount).sum() - seen;
            if (stray > 0) {
                locks.put("(keys of other resources)", List.of(new StoredKey(stray + " keys", 0, 0, null)));
            }
            return locks;
        }

        private static List<QueueEntry> queue(InMemoryLockBackend observer, String resource) {
            try {
                return observer.queue(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                        .get(30, TimeUnit.SECONDS);
            } catch (Exception ex) {
                throw new IllegalStateException("Could not read the queue of " + resource, ex);
            }
        }

        @Override
        public List<String> abandoned() {
            return List.of();
        }

        @Override
        public List<String> history() {
            return List.of();
        }

        @Override
        public void keepAlives(int client, boolean flowing) {
            if (flowing) {
                this.backends.get(client).resumeRenewals();
            } else {
                this.backends.get(client).pauseRenewals();
            }
        }

        @Override
        public void loseWriteAnswers(int client, boolean lose) {
            throw new UnsupportedOperationException("the in-memory store has no Txn answers to lose");
        }

        @Override
        public void pauseLeader(Duration pause) {
            throw new UnsupportedOperationException("the in-memory store has no leader");
        }

        @Override
        public void restartMember(int member) {
            throw new UnsupportedOperationException("the in-memory store has no members");
        }

        @Override
        public Map<Long, Long> sessionDeadlines(int client) {
            throw new UnsupportedOperationException("the in-memory backend does not show its sessions");
        }

        @Override
        public void closeClients() {
            this.clients.forEach(LockClient::close);
        }

        @Override
        public void close() {
            closeClients();
            this.observers.forEach(InMemoryLockBackend::close);
            this.stores.forEach(InMemoryLockStore::close);
        }
    }
}
