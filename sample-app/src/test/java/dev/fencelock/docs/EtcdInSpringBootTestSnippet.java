package dev.fencelock.docs;

import dev.fencelock.test.etcd.EtcdClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * docs/testing.md, "Real etcd": the test kit's etcd behind a {@code @SpringBootTest}. The sample
 * app's own tests do the same through a fault proxy, so that a case can cut the app off from etcd.
 */
abstract class EtcdInSpringBootTestSnippet {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @DynamicPropertySource
    static void etcdEndpoints(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> String.join(",", etcd.endpoints()));
    }
}
