package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiters are decided by the shared watch's mirror of the queue, not by reads. The periodic
 * re-check is set to a minute here, so every grant or failure that comes sooner comes from the
 * mirror; etcd's own request counters show that a hand-off costs the release and nothing else.
 */
class EtcdQueueMirrorTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Blocking acquisitions need threads of their own; the common pool may have only one. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void closeAll() throws Exception {
        this.threads.shutdownNow();
        while (!this.resources.isEmpty()) {
            this.resources.pop().close();
        }
    }

    @Test
    void handOffsBetweenQueuedWaitersCostOneReleaseEachAndNoRead() throws Exception {
        EtcdMember member = etcd.cluster().member(0);
        LockClient client = client();
        LockLease first = client.acquire(request("hand-off"));
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(CompletableFuture.runAsync(
                    () -> {
                        LockLease lease = client.acquire(request("hand-off"));
                        tokens.add(lease.fencingToken());
                        lease.release();
                    },
                    this.threads));
            int queued = i + 2;
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> keysOf("hand-off") == queued);
        }
        // The shared watch's one read is done once it mirrors the queue: count from there.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> mirrors(client, "hand-off"));

        double txnsBefore = requests(member, "Txn");
        double rangesBefore = requests(member, "Range");
        first.release();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        double txns = requests(member, "Txn") - txnsBefore;
        double ranges = requests(member, "Range") - rangesBefore;

        assertThat(tokens).hasSize(4).isSorted().allMatch(token -> token > first.fencingToken());
        // Five releases, no predecessor read per hand-off (that was one more Txn each) and no range read.
        assertThat(txns).as("Txn requests for 4 hand-offs").isLessThanOrEqualTo(5);
        assertThat(ranges).as("Range requests for 4 hand-offs").isZero();
    }

    @Test
    void aWaiterInAnotherClientIsHandedTheLockByTheMirror() throws Exception {
        LockClient holderClient = client();
        LockClient waiterClient = client();
        LockLease held = holderClient.acquire(request("across-clients"));
        CompletableFuture<LockLease> waiting =
                CompletableFuture.supplyAsync(() -> waiterClient.acquire(request("across-clients")), this.threads);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> keysOf("across-clients") == 2);

        held.release();
        // The periodic re-check is a minute away: only the watch can grant this within 30 s.
        LockLease next = waiting.get(30, TimeUnit.SECONDS);

        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }

    @Test
    void aWaiterWhoseQueueEntryIsDeletedFailsWithoutWaitingForItsTimeout() throws Exception {
        LockClient holderClient = client();
        LockClient waiterClient = client();
        LockLease held = holderClient.acquire(request("deleted-waiter"));
        CompletableFuture<LockLease> waiting =
                CompletableFuture.supplyAsync(() -> waiterClient.acquire(request("deleted-waiter")), this.threads);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> keysOf("deleted-waiter") == 2);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> mirrors(waiterClient, "deleted-waiter"));

        // An operator removes the waiter's entry (the newest key), as a force-release of it would.
        List<KeyValue> queue = queueOf("deleted-waiter");
        observer().getKVClient().delete(queue.get(queue.size() - 1).getKey()).get(30, TimeUnit.SECONDS);

        // The re-check is a minute away and the wait time longer: only the mirror ends this within 30 s.
        assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockBackendUnavailableException.class)
                .hasMessageContaining("disappeared while waiting");
        assertThat(held.isValid()).isTrue();
        held.release();
    }

    @Test
    void aWatchStreamThatEndsWithoutAnErrorIsReplacedAndTheWaiterStillGetsTheLock() throws Exception {
        LockClient holderClient = client();
        GrpcFaultProxy proxy =
                GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        this.resources.push(proxy);
        LockClient waiterClient = client(proxy.endpoint());
        LockLease held = holderClient.acquire(request("stream-ended"));
        CompletableFuture<LockLease> waiting =
                CompletableFuture.supplyAsync(() -> waiterClient.acquire(request("stream-ended")), this.threads);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> keysOf("stream-ended") == 2);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> proxy.endCalls("etcdserverpb.Watch/Watch") > 0);

        held.release();

        // The periodic re-check is a minute away: only a replaced watch can hand this over within 30 s.
        LockLease next = waiting.get(30, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }

    private LockClient client() {
        return client(etcd.endpoints().get(0));
    }

    private LockClient client(String endpoint) {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(endpoint)
                .recheckInterval(Duration.ofMinutes(1))
                .build();
        LockClient client = LockClient.builder(backend).build();
        this.resources.push(client);
        return client;
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(50)).build();
    }

    private static boolean mirrors(LockClient client, String resource) {
        return ((EtcdLockBackend) client.backend()).mirrorsQueueOf(resource);
    }

    private Client observer;

    private Client observer() {
        if (this.observer == null) {
            this.observer = Client.builder()
                    .endpoints(etcd.endpoints().toArray(String[]::new))
                    .build();
            this.resources.push(this.observer);
        }
        return this.observer;
    }

    private int keysOf(String resource) throws Exception {
        return queueOf(resource).size();
    }

    private List<KeyValue> queueOf(String resource) throws Exception {
        ByteSequence prefix = ByteSequence.from("/fencelock/locks/" + resource + "/", StandardCharsets.UTF_8);
        return observer()
                .getKVClient()
                .get(
                        prefix,
                        GetOption.builder()
                                .isPrefix(true)
                                .withKeysOnly(true)
                                .withSortField(GetOption.SortTarget.CREATE)
                                .withSortOrder(GetOption.SortOrder.ASCEND)
                                .build())
                .get(30, TimeUnit.SECONDS)
                .getKvs();
    }

    private static double requests(EtcdMember member, String method) {
        return member.metric("grpc_server_msg_received_total", "grpc_method=\"" + method + "\"");
    }
}
