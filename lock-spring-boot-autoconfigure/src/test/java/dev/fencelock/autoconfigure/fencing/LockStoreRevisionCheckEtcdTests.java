package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
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
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A restored etcd re-issues revisions the fence table has already seen. On a real etcd and
 * PostgreSQL: a fence row with a token far above etcd's revision stops the application at startup,
 * with both numbers and what to do.
 */
class LockStoreRevisionCheckEtcdTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private static final long FAR_AHEAD = 1_000_000_000_000L;

    private final DataSource dataSource = TestDatabase.POSTGRESQL.dataSource();

    private final String table =
            "fence_restore_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class))
            .withBean("dataSource", DataSource.class, () -> this.dataSource)
            .withPropertyValues(
                    "fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv(),
                    "fencelock.fencing.jdbc.table=" + this.table,
                    "fencelock.fencing.jdbc.initialize-schema=always");

    @AfterEach
    void dropTable() {
        new JdbcTemplate(this.dataSource).execute("DROP TABLE IF EXISTS " + this.table);
    }

    @Test
    void startupShouldBeRefusedWhenTheFenceTableHoldsATokenAboveEtcdsRevision() {
        fenceRow("order:1", FAR_AHEAD);
        this.runner.run((context) -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            // As Boot finds the analyzers: through spring.factories.
            FailureAnalysis analysis = SpringFactoriesLoader.forDefaultResourceLocation(
                            getClass().getClassLoader())
                    .load(
                            FailureAnalyzer.class,
                            ArgumentResolver.of(Environment.class, new StandardEnvironment()),
                            // Skipped, as Boot skips them: analyzers that need a bean factory this test has not got.
                            FailureHandler.logging(LogFactory.getLog(LockStoreRevisionCheckEtcdTests.class)))
                    .stream()
                    .map((analyzer) -> analyzer.analyze(failure))
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no analysis for " + failure));
            assertThat(analysis.getDescription())
                    .containsPattern("The current revision of lock store etcd\\[.+\\]/fencelock \\(\\d+\\) is below the"
                            + " highest fencing token \\(" + FAR_AHEAD + "\\)")
                    .contains("fence table '" + this.table + "'", "DataSource bean 'dataSource'", "restored");
            assertThat(analysis.getAction())
                    .contains("Stop every writer")
                    .contains(String.valueOf(FAR_AHEAD))
                    .contains("docs/operations.md")
                    .contains("fencelock.fencing.scope");
        });
    }

    @Test
    void startupShouldGoOnWhenEveryTokenIsBelowEtcdsRevision() {
        fenceRow("order:1", 1);
        this.runner.run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void tokensOfAnotherScopeShouldNotStopStartup() {
        fenceRowOfScope("another-cluster", "order:1", FAR_AHEAD);
        this.runner
                .withPropertyValues("fencelock.fencing.scope=this-cluster")
                .run((context) -> assertThat(context).hasNotFailed());
        this.runner
                .withPropertyValues("fencelock.fencing.scope=another-cluster")
                .run((context) -> assertThat(context).hasFailed());
    }

    private void fenceRow(String resource, long token) {
        write(FenceGuard.builder().table(this.table).build(), resource, token);
    }

    private void fenceRowOfScope(String scope, String resource, long token) {
        write(FenceGuard.builder().table(this.table).scope(scope).build(), resource, token);
    }

    private void write(FenceGuard guard, String resource, long token) {
        JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
        jdbc.execute((java.sql.Connection connection) -> {
            guard.createTableIfMissing(connection);
            connection.setAutoCommit(false);
            guard.check(connection, new dev.fencelock.FencingContext.Fence(resource, token, null));
            connection.commit();
            connection.setAutoCommit(true);
            return null;
        });
    }
}
