package dev.fencelock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** When the sample starts its own etcd, and that the member it starts works and goes away again. */
class DevelopmentEtcdTests {

    @Test
    void startsOnlyWhenNoEndpointsAreConfiguredForTheEtcdBackend() {
        assertThat(DevelopmentEtcd.wanted(new MockEnvironment())).isTrue();
        assertThat(DevelopmentEtcd.wanted(
                        new MockEnvironment().withProperty("fencelock.etcd.endpoints", "http://127.0.0.1:2379")))
                .isFalse();
        assertThat(DevelopmentEtcd.wanted(
                        new MockEnvironment().withProperty("fencelock.etcd.endpoints[0]", "http://127.0.0.1:2379")))
                .isFalse();
        assertThat(DevelopmentEtcd.wanted(new MockEnvironment().withProperty("fencelock.backend", "in-memory")))
                .isFalse();
        assertThat(DevelopmentEtcd.wanted(new MockEnvironment().withProperty("fencelock.enabled", "false")))
                .isFalse();
        assertThat(DevelopmentEtcd.wanted(
                        new MockEnvironment().withProperty("inventory.development-etcd.enabled", "false")))
                .isFalse();
    }

    @Test
    void startedMemberAnswersAndIsGoneAfterStop() throws Exception {
        Optional<Path> binary = DevelopmentEtcd.findBinary();
        assumeThat(binary).as("etcd binary").isPresent();

        DevelopmentEtcd.Member member = DevelopmentEtcd.start(binary.get());
        try {
            HttpResponse<String> health = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(member.endpoint() + "/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(health.body()).contains("\"health\":\"true\"");
        } finally {
            member.stop();
        }

        assertThat(member.process().isAlive()).isFalse();
        assertThat(Files.exists(member.dataDir())).isFalse();
    }
}
