package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code releaseAsync()} defers the delete so that it rides on the client's next acquisition Txn:
 * a loop of acquire and asynchronous release costs one commit per cycle, not two. Counted with
 * etcd's own request counters; the data (keys left, results) is checked too.
 */
class EtcdDeferredReleaseTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private Client observer;

    private LockClient client;

    @BeforeEach
    void connect() {
        this.observer = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build();
        this.client = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }

    @AfterEach
    void close() {
        this.client.close();
        this.observer.close();
    }

    @Test
    void asynchronousReleasesRideOnTheNextAcquisition() throws Exception {
        EtcdMember member = etcd.cluster().member(0);
        this.client.acquire(request("warm-up")).release(); // the session lease exists from here on

        int cycles = 20;
        List<CompletableFuture<Boolean>> releases = new ArrayList<>();
        double before = txns(member);
        for (int i = 0; i < cycles; i++) {
            LockLease lease = this.client.acquire(request("cycle-" + i));
            releases.add(lease.releaseAsync());
        }
        CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        double sent = txns(member) - before;

        assertThat(releases).allSatisfy(release -> assertThat(release.join()).isTrue());
        assertThat(keysUnder("cycle-")).isZero();
        // One Txn per acquisition (carrying the previous release) plus the last release on its own;
        // sent separately it would be 2 per cycle (40). Slack for cycles that a busy machine makes
        // slower than the 1 ms linger, whose release then goes alone.
        assertThat(sent).as("Txns for %d cycles", cycles).isLessThanOrEqualTo(cycles + cycles / 2);
    }

    @Test
    void aDeferredReleaseWithNothingToRideOnIsSentOnItsOwn() throws Exception {
        EtcdMember member = etcd.cluster().member(0);
        LockLease lease = this.client.acquire(request("alone"));
        double before = txns(member);

        // No acquisition follows: only its linger timer, or the orphan sweep a minute away, can send it.
        assertThat(lease.releaseAsync().get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(txns(member) - before).as("Txns sent for the release").isEqualTo(1);
        assertThat(keysUnder("alone")).isZero();
    }

    @Test
    void aReleaseOfAKeyThatIsAlreadyGoneDoesNotStopTheAcquisitionItRodeWith() throws Exception {
        LockLease first = this.client.acquire(request("gone-first"));
        // An operator deletes the key behind the holder's back.
        this.observer
                .getKVClient()
                .delete(
                        prefix("gone-first"),
                        DeleteOption.builder().isPrefix(true).build())
                .get(30, TimeUnit.SECONDS);

        CompletableFuture<Boolean> release = first.releaseAsync();
        LockLease second = this.client.acquire(request("gone-second"));

        assertThat(second.isValid()).isTrue();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(keysUnder("gone-second")).isEqualTo(1);
        release.get(30, TimeUnit.SECONDS);
        second.release();
        assertThat(keysUnder("gone-")).isZero();
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(10)).build();
    }

    private static ByteSequence prefix(String start) {
        return ByteSequence.from("/fencelock/locks/" + start, StandardCharsets.UTF_8);
    }

    private long keysUnder(String start) throws Exception {
        return this.observer
                .getKVClient()
                .get(
                        prefix(start),
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(30, TimeUnit.SECONDS)
                .getCount();
    }

    private static double txns(EtcdMember member) {
        return member.metric("grpc_server_msg_received_total", "grpc_method=\"Txn\"");
    }
}
