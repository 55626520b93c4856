package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reusing a request id returns the same live lock, or a new key with a new token: never a key whose
 * delete is still on its way, which would vanish under the new holder a moment later. And request
 * ids the caller chose are never taken for generated ones, whatever their shape.
 */
class EtcdRequestIdReuseTest {

    /**
     * A window for any delete still on its way to land (sent again 300 ms after no answer, and a second
     * later in the background); a slow machine can only let one land after it, never fail the check.
     */
    private static final Duration SETTLED = Duration.ofMillis(1500);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private GrpcFaultProxy proxy;

    private LockClient client;

    private LockClient other;

    private EtcdObserver observer;

    @BeforeEach
    void connect() {
        this.proxy = GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .attemptTimeout(Duration.ofMillis(300))
                        .retryGrace(Duration.ofSeconds(10))
                        .build())
                .build();
        this.other = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
        this.observer = new EtcdObserver(etcd.endpoints());
        this.client.acquire(LockRequest.of("warm-up")).release(); // the session lease exists from here on
    }

    @AfterEach
    void close() {
        this.client.close();
        this.other.close();
        this.observer.close();
        this.proxy.close();
    }

    @Test
    void acquiringAgainRightAfterReleaseAsyncGetsALiveLock() {
        LockRequest request =
                LockRequest.builder("released-async").requestId("worker-1").build();
        LockLease first = this.client.acquire(request);
        // The release's delete goes unanswered, so it is retried in the background a moment later.
        this.proxy.stall(GrpcFaultProxy.TXN, 1);
        first.releaseAsync();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> this.proxy.stalledCalls(GrpcFaultProxy.TXN) == 1);

        LockLease again = this.client.acquire(request);

        assertLive(again, "released-async");
        again.release();
    }

    @Test
    void retryingAfterATimeoutWhoseCleanUpIsStillOnItsWayGetsALiveLock() throws Exception {
        LockLease holder = this.other.acquire(LockRequest.of("busy"));
        // Shorter than the 2 s re-check of a waiter, so the clean-up is the next Txn it sends.
        LockRequest request = LockRequest.builder("busy")
                .requestId("worker-2")
                .waitTimeout(Duration.ofMillis(1500))
                .build();
        CompletableFuture<LockLease> timedOut = this.client.acquireAsync(request);
        // Once it queues behind the holder, the clean-up delete after its time-out goes unanswered.
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> this.observer.keysOf("busy").size() == 2);
        this.proxy.stall(GrpcFaultProxy.TXN, 2);
        assertThat(timedOut).failsWithin(Duration.ofSeconds(30));
        holder.release();

        LockLease again = this.client.acquire(
                LockRequest.builder("busy").requestId("worker-2").build());

        assertLive(again, "busy");
        again.release();
    }

    @Test
    void aCallersUuidIsNotTakenForAGeneratedIdSoARetryAdoptsTheKeyItsLostAnswerCreated() {
        String idempotencyKey = UUID.randomUUID().toString();
        // Long enough for the put to reach etcd through the proxy on a loaded machine.
        LockRequest request = LockRequest.builder("uuid-keyed")
                .requestId(idempotencyKey)
                .waitTimeout(Duration.ofSeconds(3))
                .build();
        this.proxy.dropResponses(GrpcFaultProxy.TXN, 1_000);
        assertThatThrownBy(() -> this.client.acquire(request)).isInstanceOf(LockBackendUnavailableException.class);
        this.proxy.dropResponses(GrpcFaultProxy.TXN, 0);
        // A generated id's key is abandoned at once (retried a second later if that goes unanswered
        // too); the caller's is kept for its retry for the whole retry grace.
        Awaitility.await()
                .during(Duration.ofMillis(2500))
                .atMost(Duration.ofSeconds(6)) // inside the 10 s retry grace that keeps the key
                .until(() -> this.observer.keysOf("uuid-keyed").size() == 1);
        List<KeyValue> created = this.observer.keysOf("uuid-keyed");

        LockLease retried = this.client.acquire(request);

        assertThat(retried.fencingToken()).isEqualTo(created.get(0).getCreateRevision());
        assertLive(retried, "uuid-keyed");
        retried.release();
    }

    /** The lease is valid and its key is in etcd with its token, also once any delete on its way has landed. */
    private void assertLive(LockLease lease, String resource) {
        Awaitility.await()
                .during(SETTLED)
                .atMost(SETTLED.plusSeconds(30))
                .until(() -> lease.isValid()
                        && this.observer.keysOf(resource).stream()
                                .anyMatch(kv -> kv.getCreateRevision() == lease.fencingToken()));
    }
}
