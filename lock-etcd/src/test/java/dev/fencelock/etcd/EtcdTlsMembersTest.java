package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.etcd.TestCertificates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several TLS endpoints, one of which shows a certificate the client does not trust: the client
 * skips that member, locks keep working through the others, and health says which one failed.
 */
class EtcdTlsMembersTest {

    private static final TestCertificates certificates = TestCertificates.create();

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().members(3).mutualTls(certificates));

    @Test
    void aMemberWhoseHandshakeFailsIsSkippedAndLocksKeepWorking() throws Exception {
        EtcdCluster cluster = etcd.cluster();
        EtcdMember stranger = cluster.member(2);
        TestCertificates strangers = TestCertificates.create();
        strangers.issueServer(stranger.serverCertificateFile(), stranger.serverKeyFile());
        stranger.restartWithoutWaiting();
        cluster.awaitLeader(Duration.ofSeconds(30));

        try (LockClient client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(cluster.endpoints())
                        .customizeClient(TlsClients.trusting(certificates, true))
                        .build())
                .build()) {
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                LockLease lease = client.acquire(LockRequest.builder("members-" + i)
                        .waitTimeout(Duration.ofSeconds(10))
                        .build());
                tokens.add(lease.fencingToken());
                lease.release();
            }
            assertThat(tokens).isSorted().doesNotHaveDuplicates();

            BackendHealth health = ((EtcdLockBackend) client.backend())
                    .health(Duration.ofSeconds(30))
                    .join();
            assertThat(health.up()).isTrue();
            assertThat(health.details()).containsEntry("endpointsReachable", 2).containsEntry("endpointCount", 3);
            assertThat(String.valueOf(health.details().get("statusError")))
                    .contains(stranger.clientEndpoint())
                    .contains("certificate is not trusted");
        }
    }
}
