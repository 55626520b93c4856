package dev.fencelock.docs;

import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** docs/testing.md, "A throw-away ZooKeeper": the test kit's ensemble behind a {@code @SpringBootTest}. */
abstract class ZooKeeperInSpringBootTestSnippet {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    // or, with configuration lines added to every member's:
    // ZooKeeperEnsembleExtension.of(1, "maxSessionTimeout=5000")

    @DynamicPropertySource
    static void zookeeper(DynamicPropertyRegistry registry) {
        registry.add("fencelock.backend", () -> "zookeeper");
        registry.add("fencelock.zookeeper.connect-string", zookeeper::connectString);
    }
}
