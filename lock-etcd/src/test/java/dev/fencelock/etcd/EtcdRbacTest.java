package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdUser;
import dev.fencelock.test.etcd.TestCertificates;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The backend as a least-privilege etcd user over mutual TLS: a role that may read and write only
 * {@code /fencelock/} is enough for everything FenceLock does, a namespace outside it and a wrong
 * password are refused with errors of their own (not "unavailable"), and a client keeps its locks
 * and keeps acquiring after etcd's authentication token has expired.
 */
class EtcdRbacTest {

    private static final TestCertificates certificates = TestCertificates.create();

    private static final String PASSWORD = "s3cret-Pa55word";

    /** The wait time of the acquisitions here and the bound of every check: a loaded machine's. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** etcd's token TTL here; the tests idle past it. */
    private static final Duration TOKEN_TTL = Duration.ofSeconds(2);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.of(
            EtcdCluster.builder().mutualTls(certificates).authTokenTtl(TOKEN_TTL));

    private static boolean authEnabled;

    private static synchronized EtcdCluster cluster() {
        if (!authEnabled) {
            etcd.cluster().enableAuth("root-" + PASSWORD, EtcdUser.withPrefixes("locker", PASSWORD, "/fencelock/"));
            authEnabled = true;
        }
        return etcd.cluster();
    }

    @Test
    void aUserWhoseRoleCoversOnlyTheNamespaceCanDoEverythingLockingNeeds() throws Exception {
        try (EtcdLockBackend backend = backend("/fencelock", PASSWORD);
                LockClient client = LockClient.builder(backend).build()) {
            assertThat(backend.verifyAccess(WAIT)).isTrue();

            LockLease first = client.acquire(request("rbac-a"));
            CompletableFuture<LockLease> waiter = client.acquireAsync(request("rbac-a"));
            // The waiter's put is sent asynchronously: wait until it is in the queue.
            await().atMost(WAIT)
                    .until(() -> backend.queue(ResourceName.of("rbac-a", 255))
                                    .get(WAIT.toSeconds(), TimeUnit.SECONDS)
                                    .size()
                            == 2);
            first.renew();
            first.release();
            LockLease second = waiter.join(); // bounded by its wait time
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

            // An operator's force-release reaches the holder through its watch of the namespace.
            assertThat(backend.forceRelease(ResourceName.of("rbac-a", 255)).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isPresent();
            await().atMost(WAIT).until(() -> !second.isValid());
            assertThatThrownBy(second::renew).isInstanceOf(LockLostException.class);

            BackendHealth health = backend.health(WAIT).join();
            assertThat(health.up()).isTrue();
            assertThat(health.details())
                    .containsEntry("quorum", true)
                    .containsEntry("memberCount", 1)
                    .containsEntry("endpointsReachable", 1)
                    .containsKey("leaderId")
                    .doesNotContainKeys("membersError", "statusError", "error");
        }
    }

    @Test
    void aNamespaceOutsideTheRoleIsRefusedAtTheCheckAtTheFirstAcquireAndInHealth() {
        try (EtcdLockBackend backend = backend("/other", PASSWORD);
                LockClient client = LockClient.builder(backend).build()) {
            assertThatThrownBy(() -> backend.verifyAccess(WAIT))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("denied user 'locker' permission")
                    .hasMessageContaining("every key under '/other/'");

            long started = System.nanoTime();
            assertThatThrownBy(() -> client.acquire(request("rbac-outside")))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("permission denied");
            // A refusal ends it at once; taken for an outage, it would be retried until its wait time ended.
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WAIT);

            BackendHealth health = backend.health(WAIT).join();
            assertThat(health.up()).isFalse();
            assertThat(String.valueOf(health.details().get("error"))).contains("permission denied");
        }
    }

    @Test
    void aWrongPasswordIsRefusedNamingAuthenticationAndTheSecretAppearsNowhere() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        String wrong = "wr0ng-" + PASSWORD;
        try (EtcdLockBackend backend = backend("/fencelock", wrong);
                LockClient client = LockClient.builder(backend).build()) {
            assertThatThrownBy(() -> backend.verifyAccess(WAIT))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("refused the credentials of user 'locker'")
                    .hasMessageContaining("authentication failed")
                    .hasMessageNotContaining(wrong);
            assertThatThrownBy(() -> client.acquire(request("rbac-wrong")))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageNotContaining(wrong);
            assertThat(backend.health(WAIT).join().details().toString())
                    .contains("authentication failed")
                    .doesNotContain(wrong);
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list)
                .noneSatisfy(event -> assertThat(event.getFormattedMessage() + event.getThrowableProxy())
                        .contains(PASSWORD));
    }

    @Test
    void locksAreKeptAndAcquiredAfterTheAuthTokenExpired() throws Exception {
        try (EtcdLockBackend backend = backend("/fencelock", PASSWORD);
                LockClient client = LockClient.builder(backend).build()) {
            // Keep-alives every 2 s, valid for 5.4 s: a loaded machine's late round does not lose it.
            LockLease held = client.acquire(LockRequest.builder("rbac-token-held")
                    .leaseTtl(Duration.ofSeconds(6))
                    .waitTimeout(WAIT)
                    .build());

            // Idle past the token's TTL: only keep-alives run, and the token is not renewed by them.
            await().during(TOKEN_TTL.multipliedBy(2)).atMost(WAIT).until(held::isValid);

            LockLease next = client.acquire(request("rbac-token-next"));
            assertThat(held.renew()).isNotNull();
            assertThat(held.isValid()).isTrue();
            assertThat(next.release()).isTrue();
            assertThat(held.release()).isTrue();
        }
    }

    private static EtcdLockBackend backend(String namespace, String password) {
        return EtcdLockBackend.builder()
                .endpoints(cluster().endpoints())
                .namespace(namespace)
                .credentials("locker", password)
                .customizeClient(TlsClients.trusting(certificates, true))
                .build();
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(WAIT).build();
    }
}
