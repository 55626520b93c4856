package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.FencingProperties;
import dev.fencelock.jdbc.FenceGuard;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of fencing at the data store: every {@link DataSource} bean becomes a
 * {@link dev.fencelock.jdbc.FencedDataSource}, so that inside {@code @DistributedLock} the first
 * statement of each transaction presents the lock's fencing token to the fence table. Refusals are
 * counted ({@code fencelock.fencing.rejected}) and audited when those beans exist.
 *
 * <p>Wrapping happens in a bean post-processor, so it covers data sources from any configuration;
 * the guard is an ordinary bean that an application can replace. The fence table is checked (or
 * created) by a database initializer that Boot orders after Flyway and Liquibase, and then compared
 * with the lock store: a store whose revision
 * is below the table's highest token (a restored etcd) stops the application.
 */
@AutoConfiguration(
        after = FenceLockAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(DataSource.class)
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "fencelock.fencing", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(FenceLockProperties.class)
@Import(FenceLockFencingAutoConfiguration.DatabaseInitializationOrder.class)
public final class FenceLockFencingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceGuard fenceGuard(FenceLockProperties properties) {
        FencingProperties fencing = properties.getFencing();
        FencingProperties.Jdbc jdbc = fencing.getJdbc();
        FenceGuard.Builder builder = FenceGuard.builder()
                .table(jdbc.getTable())
                .resourceLength(jdbc.getResourceLength())
                .allowProcedureCalls(jdbc.isAllowProcedureCalls())
                .protectedTables(jdbc.getProtectedTables())
                .checkInClient(jdbc.isCheckInClient())
                .boundIdleTransactions(jdbc.isBoundIdleTransactions());
        if (jdbc.getDialect() != null) {
            builder.dialect(jdbc.getDialect());
        }
        if (fencing.getScope() != null) {
            builder.scope(fencing.getScope()).scopeRollout(fencing.isScopeRollout());
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    "Invalid fencelock.fencing.jdbc.table, resource-length, protected-tables, check-in-client or"
                            + " fencelock.fencing.scope: " + ex.getMessage(),
                    ex);
        }
    }

    @Bean
    static FencedDataSourcePostProcessor fencedDataSourcePostProcessor(
            ObjectProvider<FenceGuard> guard, BeanFactory beanFactory) {
        return new FencedDataSourcePostProcessor(guard, new FencingRejections(beanFactory));
    }

    @Bean
    @ConditionalOnMissingBean
    FenceTableInitializer fenceTableInitializer(
            ListableBeanFactory beanFactory, FenceGuard guard, FenceLockProperties properties) {
        return new FenceTableInitializer(
                beanFactory, guard, properties.getFencing().getJdbc().getInitializeSchema());
    }

    // Runs once all singletons exist, so after the fence table initializer.
    @Bean
    @ConditionalOnMissingBean
    LockStoreRevisionCheck lockStoreRevisionCheck(
            ListableBeanFactory beanFactory, ObjectProvider<LockClient> client, FenceLockProperties properties) {
        return new LockStoreRevisionCheck(
                beanFactory, client, properties.getEtcd().getRequestTimeout());
    }

    /**
     * Boot's ordering of database initializers ({@link FenceTableInitializerDetector}), also when
     * no auto-configuration of Boot's that imports it (SQL init, Flyway, Liquibase, JPA) is active.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = "org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer")
    @Import(DatabaseInitializationDependencyConfigurer.class)
    static class DatabaseInitializationOrder {}
}
