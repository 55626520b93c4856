package dev.fencelock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockFencingAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockJpaFencingAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.TestDatabaseAccess;
import dev.fencelock.jdbc.FencedDataSource;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An entity with a {@link FencingToken} column on a table the database protects
 * ({@code fencelock.fencing.jdbc.protected-tables}): the current holder's updates pass both the
 * row's condition and the table's trigger, a replaced holder is refused, and a write that does not
 * go through the fenced data source is refused by the database itself.
 */
class FencingTokenJpaProtectedTableTests {

    private static final String RESOURCE = "stock:apple";

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aProtectedEntityTableAcceptsTheHolderAndRefusesEveryoneElse(String database) {
        DataSource dataSource = dataSource(database);
        JdbcTemplate plain = new JdbcTemplate(dataSource);
        String fenceTable =
                "fence_jpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        plain.execute("drop table if exists fenced_stock");
        plain.execute("create table fenced_stock (sku varchar(64) not null primary key, quantity int not null,"
                + " fence_token bigint not null)");
        plain.update("insert into fenced_stock values ('apple', 10, 0)");
        try {
            runner(dataSource, fenceTable).run((context) -> {
                assertThat(context).hasNotFailed();
                update(context, 5, 9);
                assertThat(quantity(plain)).isEqualTo(9);

                assertThatExceptionOfType(FencingTokenRejectedException.class).isThrownBy(() -> update(context, 4, 1));
                assertThat(quantity(plain)).isEqualTo(9);

                // The application's own data source, unwrapped to the pool: no fence, refused by the table.
                DataSource pool = ((FencedDataSource) context.getBean(DataSource.class)).getTarget();
                assertThatThrownBy(() -> new JdbcTemplate(pool)
                                .update("update fenced_stock set quantity = 0 where sku = 'apple'"))
                        .hasStackTraceContaining("carries no fence");
                assertThat(quantity(plain)).isEqualTo(9);
            });
        } finally {
            plain.execute("drop table if exists fenced_stock");
            plain.execute("drop table if exists " + fenceTable);
        }
    }

    private static ApplicationContextRunner runner(DataSource dataSource, String fenceTable) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockFencingAutoConfiguration.class,
                        FenceLockJpaFencingAutoConfiguration.class))
                .withUserConfiguration(EntityConfiguration.class)
                .withBean("dataSource", DataSource.class, () -> dataSource)
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "fencelock.fencing.jdbc.initialize-schema=always",
                        "fencelock.fencing.jdbc.table=" + fenceTable,
                        "fencelock.fencing.jdbc.protected-tables=fenced_stock",
                        "spring.jpa.hibernate.ddl-auto=none");
    }

    private static void update(ApplicationContext context, long token, int quantity) {
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, token, null))) {
            new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                    .executeWithoutResult((status) -> {
                        EntityManager entityManager = SharedEntityManagerCreator.createSharedEntityManager(
                                context.getBean(EntityManagerFactory.class));
                        entityManager.find(FencedStock.class, "apple").setQuantity(quantity);
                        entityManager.flush();
                    });
        }
    }

    private static int quantity(JdbcTemplate plain) {
        Integer quantity = plain.queryForObject("select quantity from fenced_stock where sku = 'apple'", Integer.class);
        return (quantity != null) ? quantity : -1;
    }

    private static DataSource dataSource(String database) {
        return switch (database) {
            case "postgresql" -> TestDatabaseAccess.postgresql();
            case "mariadb" -> TestDatabaseAccess.mariadb();
            default -> {
                JdbcDataSource h2 = new JdbcDataSource();
                h2.setURL("jdbc:h2:mem:fencelock_jpa_protected;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000");
                h2.setUser("sa");
                yield h2;
            }
        };
    }

    @Configuration(proxyBeanMethods = false)
    @EntityScan(basePackageClasses = FencedStock.class)
    static class EntityConfiguration {}
}
