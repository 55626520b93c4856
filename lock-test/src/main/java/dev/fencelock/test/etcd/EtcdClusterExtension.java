package dev.fencelock.test.etcd;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class one etcd cluster: started before its first test, closed after its last, also when tests
 * fail. Starting a cluster takes seconds, so sharing one per class keeps fault suites fast; tests that break
 * members should heal them again (for example in {@code @AfterEach}).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EtcdClusterExtension etcd = EtcdClusterExtension.members(3);
 *
 * @Test
 * void survivesLeaderLoss(EtcdCluster cluster) { ... }
 * }</pre>
 *
 * <p>Register it on a {@code static} field: JUnit only calls class-level callbacks for static registrations.
 * {@code @Nested} classes share the enclosing class's cluster. Test methods and constructors can declare an
 * {@link EtcdCluster} parameter to receive it.
 */
public final class EtcdClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final EtcdCluster.Builder builder;
    private volatile @Nullable EtcdCluster cluster;
    private volatile @Nullable String ownerId;

    private EtcdClusterExtension(EtcdCluster.Builder builder) {
        this.builder = builder;
    }

    /** A cluster of {@code members} members with default timings. */
    public static EtcdClusterExtension members(int members) {
        return new EtcdClusterExtension(EtcdCluster.builder().members(members));
    }

    /** A cluster described by {@code builder}, for non-default timings or flags. */
    public static EtcdClusterExtension of(EtcdCluster.Builder builder) {
        return new EtcdClusterExtension(builder);
    }

    /**
     * The running cluster.
     *
     * @throws IllegalStateException outside the test class's lifetime
     */
    public EtcdCluster cluster() {
        EtcdCluster current = cluster;
        if (current == null) {
            throw new IllegalStateException(
                    "the etcd cluster runs only while the test class runs; register the extension on a static field");
        }
        return current;
    }

    /** The cluster's client URLs. */
    public List<String> endpoints() {
        return cluster().endpoints();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // A @Nested class calls beforeAll again; it shares the cluster its enclosing class started.
        if (cluster != null) {
            return;
        }
        cluster = builder.build().start();
        ownerId = context.getUniqueId();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        EtcdCluster current = cluster;
        if (current == null || !context.getUniqueId().equals(ownerId)) {
            return;
        }
        cluster = null;
        ownerId = null;
        current.close();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EtcdCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return cluster();
    }
}
