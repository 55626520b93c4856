package dev.fencelock.autoconfigure.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.util.Objects;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * FenceLock namespaces never nest: {@code /fencelock/locks/x} would put its keys inside the queue of
 * resource {@code x} of {@code /fencelock}. On a real etcd, a second application whose namespace
 * nests with one already registered on the cluster, or one application with two nested
 * namespaces, is refused at startup.
 */
class EtcdNamespaceCheckTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv());

    @Test
    void aNamespaceInsideOneInUseShouldBeRefusedAtStartup() {
        this.runner.withPropertyValues("fencelock.namespace=/shop").run((first) -> {
            assertThat(first).hasNotFailed();
            this.runner
                    .withPropertyValues("fencelock.namespace=/shop/locks/orders")
                    .run((second) -> assertThat(second)
                            .getFailure()
                            .isInstanceOf(NestedNamespacesException.class)
                            .hasMessageContaining("'/shop/locks/orders'")
                            .hasMessageContaining("'/shop'")
                            .hasMessageContaining("nest"));
        });
    }

    @Test
    void aNamespaceAroundOneInUseShouldBeRefusedEvenAfterThatApplicationStopped() {
        this.runner
                .withPropertyValues("fencelock.namespace=/billing/eu")
                .run((first) -> assertThat(first).hasNotFailed());
        this.runner
                .withPropertyValues("fencelock.namespace=/billing")
                .run((second) -> assertThat(second)
                        .getFailure()
                        .isInstanceOf(NestedNamespacesException.class)
                        .hasMessageContaining("'/billing'")
                        .hasMessageContaining("'/billing/eu'"));
    }

    @Test
    void equalAndSiblingNamespacesShouldStart() {
        this.runner.withPropertyValues("fencelock.namespace=/stock").run((first) -> {
            this.runner
                    .withPropertyValues("fencelock.namespace=/stock")
                    .run((same) -> assertThat(same).hasNotFailed());
            this.runner
                    .withPropertyValues("fencelock.namespace=/stock2")
                    .run((sibling) -> assertThat(sibling).hasNotFailed());
            this.runner
                    .withPropertyValues("fencelock.namespace=/stock-eu")
                    .run((sibling) -> assertThat(sibling).hasNotFailed());
        });
    }

    @Test
    void twoNestedNamespacesInOneApplicationShouldBeRefused() {
        this.runner
                .withBean("ordersClient", LockClient.class, () -> client("/payments"))
                .withBean("refundsClient", LockClient.class, () -> client("/payments/refunds"))
                .run((context) -> {
                    assertThat(context)
                            .getFailure()
                            .isInstanceOf(NestedNamespacesException.class)
                            .hasMessageContaining("'/payments/refunds'")
                            .hasMessageContaining("'/payments'")
                            .hasMessageContaining("this application");
                    // As Boot reports it: the analyzer is found through spring.factories.
                    Throwable failure = context.getStartupFailure();
                    FailureAnalysis analysis = SpringFactoriesLoader.forDefaultResourceLocation(
                                    getClass().getClassLoader())
                            .load(
                                    FailureAnalyzer.class,
                                    ArgumentResolver.of(Environment.class, new StandardEnvironment()),
                                    FailureHandler.logging(LogFactory.getLog(EtcdNamespaceCheckTests.class)))
                            .stream()
                            .map((analyzer) -> analyzer.analyze(failure))
                            .filter(Objects::nonNull)
                            .findFirst()
                            .orElseThrow(() -> new AssertionError("no analysis for " + failure));
                    assertThat(analysis.getDescription()).contains("'/payments' and '/payments/refunds'");
                    assertThat(analysis.getAction()).contains("fencelock.namespace");
                });
    }

    private static LockClient client(String namespace) {
        return LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(etcd.endpoints())
                        .namespace(namespace)
                        .build())
                .build();
    }
}
