package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** docs/testing.md, "Taking a lock away: force-release". */
class ForceReleaseExampleTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void aForceReleasedHolderLearnsItAndTheNextHolderGetsALargerToken() throws Exception {
        try (LockClient application = client();
                LockClient operator = client()) {
            LockLease held = application.acquire(LockRequest.of("order:42"));

            forceRelease(operator, "order:42");

            await().atMost(Duration.ofSeconds(30)).until(() -> !held.isValid());
            try (LockLease next = operator.acquire(LockRequest.of("order:42"))) {
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            }
        }
    }

    /** Takes the lock of {@code resource} from whoever holds it, as {@code DELETE /actuator/fencelock/{resource}} does. */
    static void forceRelease(LockClient client, String resource) throws Exception {
        client.administration()
                .orElseThrow()
                .forceRelease(ResourceName.of(resource, client.settings().maxResourceLength()))
                .get(30, TimeUnit.SECONDS);
    }

    private static LockClient client() {
        return LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }
}
