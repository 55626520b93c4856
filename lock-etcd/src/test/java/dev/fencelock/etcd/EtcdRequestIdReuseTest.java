package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockOutcomeUnknownException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reusing a request id returns the same live lock, or a new key with a new token: never a key whose
 * delete is still on its way, which would vanish under the new holder a moment later. That holds
 * when answers are lost, and when they come late: a late answer is held at a proxy and passed on
 * exactly when the race needs it. And request ids the caller chose are never taken for generated
 * ones, whatever their shape.
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

    @Test
    void anotherClientsLostAnswerForAnIdInUseNeitherBlocksTheHolderNorHidesThatTheIdIsInUse() {
        LockRequest request = LockRequest.builder("held-elsewhere")
                .requestId("job-7")
                .waitTimeout(Duration.ZERO)
                .build();
        LockLease holder = this.other.acquire(request);
        try (LockClient losing = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(this.proxy.endpoint())
                                .attemptTimeout(Duration.ofMillis(300))
                                .retryGrace(Duration.ofMillis(100))
                                .build())
                        .build();
                LockClient third = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(etcd.endpoints())
                                .build())
                        .build()) {
            losing.acquire(LockRequest.of("warm-up")).release();
            // The losing client's put of the same id is refused by etcd, but the answer never arrives:
            // it cannot know that, so it abandons the id once its retry grace is over.
            this.proxy.dropResponses(GrpcFaultProxy.TXN, 1_000);
            assertThatThrownBy(() -> losing.acquire(request)).isInstanceOf(LockBackendUnavailableException.class);
            this.proxy.dropResponses(GrpcFaultProxy.TXN, 0);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() ->
                            !this.observer.keysUnder("/fencelock/abandoned/").isEmpty());

            // Whoever else asks for the id learns that it is in use, not that it was abandoned.
            assertThatThrownBy(() -> third.acquire(request))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("in use");
            // And the holder, which lost nothing, may use its own id again after releasing it.
            holder.release();
            LockLease again = this.other.acquire(request);
            assertLive(again, "held-elsewhere");
            again.release();
        }
    }

    @Test
    void aRetryStartedJustAsAReleaseSendsItsDeleteGetsALiveLock() throws Exception {
        try (Client etcdClient = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .retryMaxAttempts(0)
                        .build();
                LockClient releasing = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(etcd.endpoints())
                                .client(new DeleteInterceptingClient(etcdClient))
                                .build())
                        .build()) {
            DeleteInterceptingClient intercepting =
                    (DeleteInterceptingClient) ((EtcdLockBackend) releasing.backend()).client();
            LockRequest request =
                    LockRequest.builder("releasing").requestId("worker-3").build();
            LockLease first = releasing.acquire(request);
            CompletableFuture<LockLease> retry = new CompletableFuture<>();
            // The retry starts on the releasing thread just before the release's delete is sent, and
            // whatever it sends meanwhile is answered before the delete goes.
            intercepting.beforeNextDelete(() -> releasing.acquireAsync(request).whenComplete((lease, failure) -> {
                if (failure != null) {
                    retry.completeExceptionally(failure);
                } else {
                    retry.complete(lease);
                }
            }));

            first.release();

            LockLease again = retry.get(10, TimeUnit.SECONDS);
            assertThat(again.fencingToken())
                    .as("token of the retry; the released key had token %d", first.fencingToken())
                    .isGreaterThan(first.fencingToken());
            assertLive(again, "releasing");
            again.release();
        }
    }

    @Test
    void aRetryWhosePutIsAnsweredOnlyAfterTheReleaseOfTheSameKeyLandedGetsALiveLock() throws Exception {
        try (LockClient patient = patientClient()) {
            EtcdLockBackend backend = (EtcdLockBackend) patient.backend();
            BackendLock held = backend.acquire(command("in-flight", "worker-4")).get(10, TimeUnit.SECONDS);
            this.proxy.holdResponses(GrpcFaultProxy.TXN, 1);
            CompletableFuture<BackendLock> retry = backend.acquire(command("in-flight", "worker-4"));
            // The retry's put found the held key in etcd; its answer waits at the proxy.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> this.proxy.heldResponses(GrpcFaultProxy.TXN) == 1);

            assertThat(backend.release(held).get(10, TimeUnit.SECONDS)).isTrue();
            this.proxy.releaseHeldResponse(GrpcFaultProxy.TXN);

            BackendLock again = retry.get(10, TimeUnit.SECONDS);
            assertThat(again.fencingToken())
                    .as("token of the retry; the released key had token %d", held.fencingToken())
                    .isGreaterThan(held.fencingToken());
            assertLive(again::isValid, again.fencingToken(), "in-flight");
            backend.release(again).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRetryKeepsTheKeyOfTheFirstPutWhoseAnswerCameAfterTheFirstAttemptGaveUp() throws Exception {
        try (LockClient patient = patientClient()) {
            LockRequest request = LockRequest.builder("late-answer")
                    .requestId("worker-5")
                    .waitTimeout(Duration.ofMillis(500))
                    .build();
            this.proxy.holdResponses(GrpcFaultProxy.TXN, 2);
            assertThatThrownBy(() -> patient.acquire(request)).isInstanceOf(LockOutcomeUnknownException.class);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> this.proxy.heldResponses(GrpcFaultProxy.TXN) == 1);
            List<KeyValue> created = this.observer.keysOf("late-answer");
            assertThat(created).hasSize(1);

            CompletableFuture<LockLease> retry = patient.acquireAsync(LockRequest.builder("late-answer")
                    .requestId("worker-5")
                    .waitTimeout(Duration.ofSeconds(20))
                    .build());
            // The retry's put found the first put's key; its answer waits at the proxy too.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> this.proxy.heldResponses(GrpcFaultProxy.TXN) == 2);
            // The first put's answer arrives now, after its attempt gave up and while the retry is under way.
            this.proxy.releaseHeldResponse(GrpcFaultProxy.TXN);
            // A client that deletes the key on that answer does so within one round trip; one that leaves
            // the key to the retry deletes nothing, and this wait ends on its bound. A machine too slow for
            // the bound could only hide the first kind, never fail the second.
            awaitAtMost(
                    Duration.ofSeconds(3),
                    () -> this.observer.keysOf("late-answer").isEmpty());
            this.proxy.releaseHeldResponse(GrpcFaultProxy.TXN);

            LockLease again = retry.get(10, TimeUnit.SECONDS);
            assertThat(again.fencingToken())
                    .as(
                            "token of the retry; the first put's key had token %d",
                            created.get(0).getCreateRevision())
                    .isEqualTo(created.get(0).getCreateRevision());
            assertLive(again, "late-answer");
            again.release();
        }
    }

    /**
     * A client through the proxy whose sends wait 30 s for an answer, so an answer held at the proxy
     * is still heard, and is not overtaken by the same request sent again.
     */
    private LockClient patientClient() {
        LockClient patient = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .requestTimeout(Duration.ofSeconds(30))
                        .attemptTimeout(Duration.ofSeconds(30))
                        .retryGrace(Duration.ofSeconds(10))
                        .build())
                .build();
        patient.acquire(LockRequest.of("warm-up-patient")).release(); // the session lease exists from here on
        return patient;
    }

    private static AcquireCommand command(String resource, String requestId) {
        return new AcquireCommand(
                ResourceName.of(resource, 255),
                requestId,
                30,
                true,
                System.nanoTime() + TimeUnit.SECONDS.toNanos(20),
                false);
    }

    /** Waits until {@code condition} holds or {@code bound} has passed, whichever comes first. */
    private static void awaitAtMost(Duration bound, BooleanSupplier condition) {
        try {
            Awaitility.await().atMost(bound).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException boundReached) {
            // the condition did not come about: that is one of the two outcomes waited for
        }
    }

    /** The lease is valid and its key is in etcd with its token, also once any delete on its way has landed. */
    private void assertLive(LockLease lease, String resource) {
        assertLive(lease::isValid, lease.fencingToken(), resource);
    }

    private void assertLive(BooleanSupplier valid, long token, String resource) {
        Awaitility.await().during(SETTLED).atMost(SETTLED.plusSeconds(30)).untilAsserted(() -> {
            assertThat(this.observer.keysOf(resource))
                    .as("create revisions of the keys of '%s' in etcd, for a lock with token %d", resource, token)
                    .extracting(KeyValue::getCreateRevision)
                    .contains(token);
            assertThat(valid.getAsBoolean())
                    .as("the lock of '%s' with token %d is valid", resource, token)
                    .isTrue();
        });
    }
}
