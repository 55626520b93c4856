package dev.fencelock.etcd.model;

import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.fault.GrpcFaultProxy;
import dev.fencelock.test.model.LockSystem;
import dev.fencelock.test.model.ModelClients;
import dev.fencelock.test.model.StoreView;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Three clients on a real etcd cluster, each reaching every member through a {@link
 * GrpcFaultProxy} of its own, so that one client's keep-alives can be stalled or its Txn answers
 * lost while the others go on. Keys are read with a jetcd client of its own, straight from the
 * members. Every script gets a namespace of its own.
 */
final class EtcdLockSystem implements LockSystem, AutoCloseable {

    static final String KEEP_ALIVE = "etcdserverpb.Lease/LeaseKeepAlive";

    static final String REVOKE = "etcdserverpb.Lease/LeaseRevoke";

    private static final Pattern INSTANCE = Pattern.compile("\"instance\":\"c(\\d+)\"");

    private static final Duration TTL = Duration.ofSeconds(2);

    private static final Duration HEALTHY_WITHIN = Duration.ofSeconds(20);

    private final EtcdCluster cluster;

    /** {@code proxies.get(client).get(member)}. */
    private final List<List<GrpcFaultProxy>> proxies = new ArrayList<>();

    private final Client observer;

    EtcdLockSystem(EtcdCluster cluster) {
        this.cluster = cluster;
        for (int c = 0; c < LockSystem.CLIENTS; c++) {
            List<GrpcFaultProxy> routes = new ArrayList<>();
            for (EtcdMember member : cluster.members()) {
                routes.add(GrpcFaultProxy.forEndpoint(member.clientEndpoint()));
            }
            this.proxies.add(routes);
        }
        this.observer = Client.builder()
                .endpoints(cluster.endpoints().toArray(String[]::new))
                .build();
    }

    @Override
    public String describe() {
        return "etcd (" + this.cluster.size() + (this.cluster.size() == 1 ? " member)" : " members)");
    }

    @Override
    public int members() {
        return this.cluster.size();
    }

    @Override
    public Duration leaseTtl() {
        return TTL;
    }

    @Override
    public Duration sessionValidity() {
        // SessionLease: a keep-alive keeps its locks valid for the TTL less a tenth (at least 100 ms).
        return TTL.minus(Duration.ofNanos(Math.max(TTL.toNanos() / 10, TimeUnit.MILLISECONDS.toNanos(100))));
    }

    @Override
    public Duration settleTimeout() {
        return Duration.ofSeconds(30); // a give-up time: elections and expiries on a loaded machine
    }

    @Override
    public Run start(String runId) {
        return new EtcdRun("/model-" + runId);
    }

    @Override
    public void close() {
        this.proxies.forEach(routes -> routes.forEach(GrpcFaultProxy::close));
        this.observer.close();
    }

    private final class EtcdRun implements Run, StoreView {

        private final String namespace;

        private final List<LockClient> clients = new ArrayList<>();

        EtcdRun(String namespace) {
            this.namespace = namespace;
            for (int c = 0; c < LockSystem.CLIENTS; c++) {
                EtcdLockBackend backend = EtcdLockBackend.builder()
                        .endpoints(proxies.get(c).stream()
                                .map(GrpcFaultProxy::endpoint)
                                .toList())
                        .namespace(namespace)
                        .instanceId("c" + (c + 1))
                        .requestTimeout(Duration.ofSeconds(2))
                        .attemptTimeout(Duration.ofMillis(300))
                        .recheckInterval(Duration.ofSeconds(1))
                        .retryGrace(Duration.ofSeconds(1))
                        .abandonMarkerLifetime(Duration.ofSeconds(2))
                        .sweepInterval(Duration.ofSeconds(5))
                        .build();
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
            String prefix = this.namespace + "/locks/";
            Map<String, List<StoredKey>> locks = new LinkedHashMap<>();
            for (KeyValue kv : read(prefix, false)) {
                String[] parts = kv.getKey()
                        .toString(StandardCharsets.UTF_8)
                        .substring(prefix.length())
                        .split("/", -1);
                Matcher instance = INSTANCE.matcher(kv.getValue().toString(StandardCharsets.UTF_8));
                Integer client = instance.find() ? Integer.parseInt(instance.group(1)) - 1 : null;
                locks.computeIfAbsent(decode(parts[0]), r -> new ArrayList<>())
                        .add(new StoredKey(
                                decode(parts[parts.length - 1]), kv.getCreateRevision(), kv.getLease(), client));
            }
            return locks;
        }

        @Override
        public List<String> abandoned() {
            String prefix = this.namespace + "/abandoned/";
            // <resource>/<session lease>/<request id>, with the instance that abandoned it as the value.
            List<String> markers = new ArrayList<>();
            for (KeyValue kv : read(prefix, false)) {
                String[] parts = kv.getKey()
                        .toString(StandardCharsets.UTF_8)
                        .substring(prefix.length())
                        .split("/", -1);
                Matcher instance = INSTANCE.matcher(kv.getValue().toString(StandardCharsets.UTF_8));
                String client = instance.find() ? instance.group(1) : "?";
                markers.add("c" + client + ":" + decode(parts[0]) + "/" + decode(parts[parts.length - 1]));
            }
            return markers;
        }

        /**
         * Replays the namespace's history with a watch from revision 1 (these tests never compact),
         * until it has been quiet for a moment. Events of one revision were one Txn.
         */
        @Override
        public List<String> history() {
            String prefix = this.namespace + "/";
            List<String> events = new CopyOnWriteArrayList<>();
            AtomicLong lastEvent = new AtomicLong(System.nanoTime());
            Watch.Watcher watcher = observer.getWatchClient()
                    .watch(
                            ByteSequence.from(prefix, StandardCharsets.UTF_8),
                            WatchOption.builder()
                                    .isPrefix(true)
                                    .withRevision(1)
                                    .withPrevKV(true)
                                    .build(),
                            Watch.listener(response -> {
                                response.getEvents().forEach(event -> events.add(describe(event, prefix)));
                                lastEvent.set(System.nanoTime());
                            }));
            try {
                // Diagnostics on the way to a failure: the replay ends when nothing more comes.
                Awaitility.await()
                        .pollInSameThread()
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> System.nanoTime() - lastEvent.get() > TimeUnit.MILLISECONDS.toNanos(300));
            } catch (ConditionTimeoutException stillComing) {
                events.add("(history cut short)");
            } finally {
                watcher.close();
            }
            return events;
        }

        private static String describe(WatchEvent event, String prefix) {
            KeyValue kv = event.getKeyValue();
            String key = kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
            if (event.getEventType() == WatchEvent.EventType.PUT) {
                Matcher instance = INSTANCE.matcher(kv.getValue().toString(StandardCharsets.UTF_8));
                return "rev " + kv.getModRevision() + " put " + key + " lease " + kv.getLease()
                        + (instance.find() ? " by c" + instance.group(1) : "");
            }
            KeyValue before = event.getPrevKV();
            return "rev " + kv.getModRevision() + " delete " + key
                    + ((before != null && before.getCreateRevision() != 0)
                            ? " (created at rev " + before.getCreateRevision() + ", lease " + before.getLease() + ")"
                            : "");
        }

        /** A linearizable read of every key under {@code prefix}, oldest first. */
        private List<KeyValue> read(String prefix, boolean keysOnly) {
            try {
                return observer.getKVClient()
                        .get(
                                ByteSequence.from(prefix, StandardCharsets.UTF_8),
                                GetOption.builder()
                                        .isPrefix(true)
                                        .withKeysOnly(keysOnly)
                                        .withSortField(GetOption.SortTarget.CREATE)
                                        .withSortOrder(GetOption.SortOrder.ASCEND)
                                        .build())
                        .get(30, TimeUnit.SECONDS)
                        .getKvs();
            } catch (Exception ex) {
                throw new IllegalStateException("Could not read " + prefix + " from etcd", ex);
            }
        }

        @Override
        public void keepAlives(int client, boolean flowing) {
            // Revokes are held too: the lease must run out in etcd, not be revoked by the client.
            int stalled = flowing ? 0 : Integer.MAX_VALUE;
            for (GrpcFaultProxy proxy : proxies.get(client)) {
                proxy.stall(KEEP_ALIVE, stalled);
                proxy.stall(REVOKE, stalled);
            }
        }

        @Override
        public void loseWriteAnswers(int client, boolean lose) {
            // One lost answer per route: whichever member the client asks next, its answer is lost.
            proxies.get(client).forEach(proxy -> proxy.dropResponses(GrpcFaultProxy.TXN, lose ? 1 : 0));
        }

        @Override
        public void pauseLeader(Duration pause) {
            EtcdMember leader = cluster.awaitLeader(HEALTHY_WITHIN);
            leader.pause();
            try {
                // The fault is a frozen leader for this long; nothing is being waited for.
                LockSupport.parkNanos(pause.toNanos());
            } finally {
                leader.resume();
            }
            awaitHealthy();
        }

        @Override
        public void restartMember(int member) {
            cluster.member(member).restartWithoutWaiting();
            awaitHealthy();
        }

        private void awaitHealthy() {
            cluster.awaitLeader(HEALTHY_WITHIN);
            for (EtcdMember member : cluster.members()) {
                member.awaitHealthy(HEALTHY_WITHIN);
            }
            for (List<GrpcFaultProxy> routes : proxies) {
                for (GrpcFaultProxy proxy : routes) {
                    if (!proxy.reconnect(HEALTHY_WITHIN)) {
                        throw new IllegalStateException("A proxy could not reach its member again after a fault");
                    }
                }
            }
        }

        @Override
        public Map<Long, Long> sessionDeadlines(int client) {
            long now = System.nanoTime();
            Map<Long, Long> deadlines = new HashMap<>();
            ((EtcdLockBackend) this.clients.get(client).backend())
                    .sessions()
                    .values()
                    .forEach(session -> deadlines.put(
                            session.leaseId(), now + session.validFor().toNanos()));
            return deadlines;
        }

        @Override
        public void closeClients() {
            // Healed first, so that closing revokes every lease at once.
            heal();
            this.clients.forEach(LockClient::close);
        }

        @Override
        public void close() {
            closeClients();
            heal();
            for (EtcdMember member : cluster.members()) {
                if (!member.isRunning()) {
                    member.restartWithoutWaiting();
                }
            }
            awaitHealthy();
        }

        private void heal() {
            for (int c = 0; c < LockSystem.CLIENTS; c++) {
                keepAlives(c, true);
                loseWriteAnswers(c, false);
            }
            cluster.members().forEach(EtcdMember::resume);
        }
    }

    private static String decode(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
