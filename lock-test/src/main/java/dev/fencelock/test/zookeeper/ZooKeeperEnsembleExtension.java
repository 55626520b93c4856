package dev.fencelock.test.zookeeper;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class one ZooKeeper ensemble: started before its first test, stopped by PID after its last, also
 * when tests fail. Starting members takes seconds, so sharing one per class keeps suites fast; tests that break
 * members should heal them again (for example in {@code @AfterEach}).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);
 *
 * @Test
 * void locks(ZooKeeperEnsemble ensemble) { ... ensemble.connectString() ... }
 * }</pre>
 *
 * <p>Register it on a {@code static} field: JUnit only calls class-level callbacks for static registrations.
 * {@code @Nested} classes share the enclosing class's ensemble. Test methods and constructors can declare a
 * {@link ZooKeeperEnsemble} parameter to receive it. A JVM that exits before the after-all callback ran still
 * stops the members, through {@link ZooKeeperEnsemble}'s shutdown hook.
 */
public final class ZooKeeperEnsembleExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private final int size;

    private final String extraConfig;

    private volatile @Nullable ZooKeeperEnsemble ensemble;

    private volatile @Nullable String ownerId;

    private ZooKeeperEnsembleExtension(int size, String extraConfig) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("An ensemble of 1 or 3 servers, not " + size);
        }
        this.size = size;
        this.extraConfig = extraConfig;
    }

    /** An ensemble of {@code size} members (1, standalone, or 3) with the kit's configuration. */
    public static ZooKeeperEnsembleExtension members(int size) {
        return new ZooKeeperEnsembleExtension(size, "");
    }

    /**
     * An ensemble of {@code size} members with {@code extraConfig} (lines such as {@code maxSessionTimeout=5000})
     * added to every member's configuration, as {@link ZooKeeperEnsemble#start(int, String)} does.
     */
    public static ZooKeeperEnsembleExtension of(int size, String extraConfig) {
        return new ZooKeeperEnsembleExtension(size, extraConfig);
    }

    /**
     * The running ensemble.
     *
     * @throws IllegalStateException outside the test class's lifetime
     */
    public ZooKeeperEnsemble ensemble() {
        ZooKeeperEnsemble current = this.ensemble;
        if (current == null) {
            throw new IllegalStateException("the ZooKeeper ensemble runs only while the test class runs;"
                    + " register the extension on a static field");
        }
        return current;
    }

    /** The ensemble's client addresses, {@code 127.0.0.1:p1,127.0.0.1:p2,…}. */
    public String connectString() {
        return ensemble().connectString();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // A @Nested class calls beforeAll again; it shares the ensemble its enclosing class started.
        if (this.ensemble != null) {
            return;
        }
        this.ensemble = ZooKeeperEnsemble.start(this.size, this.extraConfig);
        this.ownerId = context.getUniqueId();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ZooKeeperEnsemble current = this.ensemble;
        if (current == null || !context.getUniqueId().equals(this.ownerId)) {
            return;
        }
        this.ensemble = null;
        this.ownerId = null;
        current.close();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == ZooKeeperEnsemble.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return ensemble();
    }
}
