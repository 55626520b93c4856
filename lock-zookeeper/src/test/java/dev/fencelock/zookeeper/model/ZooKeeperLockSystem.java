package dev.fencelock.zookeeper.model;

import dev.fencelock.LockClient;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.model.LockSystem;
import dev.fencelock.test.model.ModelClients;
import dev.fencelock.test.model.StoreView;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.awaitility.Awaitility;

/**
 * Three clients on a real ZooKeeper ensemble, each reaching every member through a {@link
 * FaultProxy} of its own, so that one client's answers can be lost or its connections cut while the
 * others go on. Nodes are read with a ZooKeeper client of its own, straight from the members, after
 * a {@code sync}. Every script gets a namespace of its own.
 *
 * <p>The faults, as ZooKeeper has them:
 *
 * <ul>
 *   <li><b>Keep-alives stalled.</b> {@link ZooKeeperLockBackend#pauseRenewals()}, and the client's
 *       proxies cut, so that its session's pings stop too and the ensemble expires the session
 *       (deleting its nodes, waiters' included). Once the ensemble holds no node of the client's
 *       sessions, the proxies forward again, so that the client learns of the expiry.
 *   <li><b>Answers lost after apply.</b> The client's proxies drop what the ensemble sends back
 *       ({@link FaultProxy#blackholeResponses()}) until the client's next command ends, but at most
 *       {@link #LOST_ANSWERS} (a step waits for its answer, so an unbounded silence would only hold
 *       it until the give-up time); then {@link FaultProxy#restore()} closes the connections that
 *       lost answers, and the client reconnects to its session.
 *   <li><b>Leader paused</b> with {@code SIGSTOP}, <b>member restarted</b> on its data; then every
 *       member must serve again.
 * </ul>
 */
final class ZooKeeperLockSystem implements LockSystem, AutoCloseable {

    private static final Pattern INSTANCE = Pattern.compile("\"instance\":\"c(\\d+)\"");

    /**
     * The session timeout. A connection that lost answers is reset, and the ZooKeeper client waits up
     * to a second before it reconnects: with 2 s, that and the lost answers could outlast the
     * session itself, and the fault would lose sessions, not answers.
     */
    private static final Duration TTL = Duration.ofSeconds(4);

    /**
     * How long answers stay lost at most: well within the session's local validity (2.6 s), so that
     * the fault loses answers, not whole sessions.
     */
    static final Duration LOST_ANSWERS = Duration.ofMillis(400);

    private static final Duration SERVES_WITHIN = Duration.ofSeconds(60);

    private final ZooKeeperEnsemble ensemble;

    /** {@code proxies.get(client).get(member)}. */
    private final List<List<FaultProxy>> proxies = new ArrayList<>();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "zookeeper-model-faults");
        thread.setDaemon(true);
        return thread;
    });

    private final ZooKeeper observer;

    /** Per client, counts the faults set on its proxies: a timed restore of an earlier one must not end a later one. */
    private final AtomicIntegerArray faults = new AtomicIntegerArray(CLIENTS);

    ZooKeeperLockSystem(ZooKeeperEnsemble ensemble) {
        this.ensemble = ensemble;
        for (int c = 0; c < CLIENTS; c++) {
            List<FaultProxy> routes = new ArrayList<>();
            for (ZooKeeperEnsemble.Member member : ensemble.members()) {
                routes.add(FaultProxy.start("127.0.0.1", member.clientPort()));
            }
            this.proxies.add(routes);
        }
        try {
            this.observer = new ZooKeeper(ensemble.connectString(), 30_000, event -> {});
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public String describe() {
        int size = this.ensemble.members().size();
        return "ZooKeeper (" + size + (size == 1 ? " member)" : " members)");
    }

    @Override
    public int members() {
        return this.ensemble.members().size();
    }

    @Override
    public Duration leaseTtl() {
        return TTL;
    }

    @Override
    public Duration sessionValidity() {
        // ZooKeeperSession: the timeout less a heartbeat period (a quarter) and a safety margin (a tenth, at least 100
        // ms).
        long timeout = TTL.toNanos();
        return Duration.ofNanos(timeout - timeout / 4 - Math.max(timeout / 10, TimeUnit.MILLISECONDS.toNanos(100)));
    }

    @Override
    public Duration settleTimeout() {
        return Duration.ofSeconds(30); // a give-up time: elections and expiries on a loaded machine
    }

    @Override
    public Run start(String runId) {
        return new ZooKeeperRun("/model-" + runId);
    }

    @Override
    public void close() {
        this.timer.shutdownNow();
        this.proxies.forEach(routes -> routes.forEach(FaultProxy::close));
        try {
            this.observer.close(5_000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private final class ZooKeeperRun implements Run, StoreView {

        private final String namespace;

        private final List<ZooKeeperLockBackend> backends = new ArrayList<>();

        private final List<LockClient> clients = new ArrayList<>();

        ZooKeeperRun(String namespace) {
            this.namespace = namespace;
            for (int c = 0; c < CLIENTS; c++) {
                ZooKeeperLockBackend backend = ZooKeeperLockBackend.builder()
                        .connectString(proxies.get(c).stream()
                                .map(proxy -> "127.0.0.1:" + proxy.port())
                                .collect(Collectors.joining(",")))
                        .namespace(namespace)
                        .instanceId("c" + (c + 1))
                        .build();
                this.backends.add(backend);
                this.clients.add(
                        ModelClients.configure(LockClient.builder(backend), TTL).build());
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
            String parent = this.namespace + "/locks";
            Map<String, List<StoredKey>> locks = new LinkedHashMap<>();
            for (String resource : children(parent)) {
                List<StoredKey> keys = new ArrayList<>();
                List<String> names = new ArrayList<>(children(parent + "/" + resource));
                names.sort(Comparator.comparingLong(name -> Long.parseLong(name.substring(name.lastIndexOf('.') + 1))));
                for (String name : names) {
                    Stat stat = new Stat();
                    byte[] data = data(parent + "/" + resource + "/" + name, stat);
                    if (data == null) {
                        continue; // deleted since the children were read
                    }
                    Matcher instance = INSTANCE.matcher(new String(data, StandardCharsets.UTF_8));
                    Integer client = instance.find() ? Integer.parseInt(instance.group(1)) - 1 : null;
                    // <kind>.<request id>.<nonce>.<sequence>
                    int nonce = name.lastIndexOf('.', name.lastIndexOf('.') - 1);
                    String requestId = decode(name.substring(name.indexOf('.') + 1, nonce));
                    keys.add(new StoredKey(requestId, stat.getCzxid(), stat.getEphemeralOwner(), client));
                }
                if (!keys.isEmpty()) {
                    locks.put(decode(resource), keys);
                }
            }
            return locks;
        }

        /** ZooKeeper keeps no abandon markers: a create with an unknown outcome is looked for by name. */
        @Override
        public List<String> abandoned() {
            return List.of();
        }

        /** ZooKeeper keeps no history of its writes that a client can read. */
        @Override
        public List<String> history() {
            return List.of();
        }

        /** The children of {@code path} after a sync (empty when it does not exist), retried while the ensemble does not answer. */
        private List<String> children(String path) {
            return read(path, () -> {
                try {
                    return observer.getChildren(path, false);
                } catch (KeeperException.NoNodeException gone) {
                    return List.of();
                }
            });
        }

        private byte[] data(String path, Stat stat) {
            return read(path, () -> {
                try {
                    return observer.getData(path, false, stat);
                } catch (KeeperException.NoNodeException gone) {
                    return null;
                }
            });
        }

        private <T> T read(String path, ZooKeeperRead<T> read) {
            long deadline = System.nanoTime() + settleTimeout().toNanos();
            while (true) {
                try {
                    CompletableFuture<Void> synced = new CompletableFuture<>();
                    observer.sync(path, (rc, p, ctx) -> synced.complete(null), null);
                    synced.get(10, TimeUnit.SECONDS);
                    return read.read();
                } catch (KeeperException | TimeoutException ex) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("Could not read " + path + " from ZooKeeper: " + ex, ex);
                    }
                    // The observer is reconnecting after a fault, or its sync waits on a busy machine: the read is
                    // tried again until the settle timeout.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                } catch (Exception ex) {
                    throw new IllegalStateException("Could not read " + path + " from ZooKeeper: " + ex, ex);
                }
            }
        }

        @Override
        public void keepAlives(int client, boolean flowing) {
            ZooKeeperLockBackend backend = this.backends.get(client);
            faults.incrementAndGet(client);
            if (flowing) {
                backend.resumeRenewals();
                proxies.get(client).forEach(FaultProxy::restore);
                return;
            }
            Set<Long> sessions = backend.sessionDeadlines().keySet();
            backend.pauseRenewals();
            proxies.get(client).forEach(FaultProxy::cut);
            // The ensemble expires the sessions a timeout after their last ping; then the client may learn of it.
            Awaitility.await("the ensemble to expire the sessions of c" + (client + 1))
                    .atMost(settleTimeout())
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> locks().values().stream()
                            .flatMap(List::stream)
                            .noneMatch(key -> sessions.contains(key.leaseId())));
            proxies.get(client).forEach(FaultProxy::restore);
        }

        @Override
        public void loseWriteAnswers(int client, boolean lose) {
            List<FaultProxy> routes = proxies.get(client);
            int fault = faults.incrementAndGet(client);
            if (lose) {
                routes.forEach(FaultProxy::blackholeResponses);
                timer.schedule(
                        () -> {
                            if (faults.get(client) == fault) {
                                routes.forEach(FaultProxy::restore);
                            }
                        },
                        LOST_ANSWERS.toNanos(),
                        TimeUnit.NANOSECONDS);
            } else {
                routes.forEach(FaultProxy::restore);
            }
        }

        @Override
        public void pauseLeader(Duration pause) {
            ZooKeeperEnsemble.Member leader = ensemble.leader();
            leader.pause();
            try {
                // The fault is a frozen leader for this long; nothing is being waited for.
                LockSupport.parkNanos(pause.toNanos());
            } finally {
                leader.resume();
            }
            awaitServing();
        }

        @Override
        public void restartMember(int member) {
            ensemble.members().get(member).restart();
            awaitServing();
        }

        private void awaitServing() {
            for (ZooKeeperEnsemble.Member member : ensemble.members()) {
                Awaitility.await(member + " to serve")
                        .atMost(SERVES_WITHIN)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> member.mode() != null);
            }
        }

        @Override
        public Map<Long, Long> sessionDeadlines(int client) {
            return this.backends.get(client).sessionDeadlines();
        }

        @Override
        public void closeClients() {
            // Healed first, so that closing ends every session at once and its nodes go with it.
            heal();
            this.clients.forEach(LockClient::close);
        }

        @Override
        public void close() {
            closeClients();
            heal();
            awaitServing();
        }

        private void heal() {
            for (int c = 0; c < CLIENTS; c++) {
                faults.incrementAndGet(c);
                this.backends.get(c).resumeRenewals();
                proxies.get(c).forEach(FaultProxy::restore);
            }
            ensemble.members().forEach(ZooKeeperEnsemble.Member::resume);
        }
    }

    /** One read of the observer. */
    private interface ZooKeeperRead<T> {

        T read() throws KeeperException, InterruptedException;
    }

    private static String decode(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
