package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.autoconfigure.FenceLockProperties.InitializationMode;
import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FenceProtection;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Makes sure the fence table exists in the database of every fenced {@code DataSource} bean before
 * the application serves requests: creates it when {@code
 * fencelock.fencing.jdbc.initialize-schema} says so, and otherwise stops startup with the DDL to
 * add to the migrations. Without this check a missing table would surface only at the first fenced
 * write, in production, under a lock.
 *
 * <p>A database initializer in Spring Boot's sense ({@link FenceTableInitializerDetector}): it runs
 * when its bean is created, after Flyway, Liquibase and {@code spring.sql.init} scripts have run (so
 * a migration that creates the table is seen), and before every bean that depends on database
 * initialization ({@code JdbcTemplate}, JPA, {@code @DependsOnDatabaseInitialization} beans), so
 * none of them can write through a fenced data source before its table exists. Opens one connection
 * per data source, with no fence on the thread, so nothing is guarded.
 */
final class FenceTableInitializer implements InitializingBean {

    static final String PROPERTY = "fencelock.fencing.jdbc.initialize-schema";

    /** "Undefined table" in PostgreSQL, "table not found" in MariaDB/MySQL and H2. */
    private static final Set<String> MISSING_TABLE_STATES = Set.of("42P01", "42S02", "42S04");

    private final ListableBeanFactory beanFactory;

    private final FenceGuard guard;

    private final InitializationMode mode;

    FenceTableInitializer(ListableBeanFactory beanFactory, FenceGuard guard, InitializationMode mode) {
        this.beanFactory = beanFactory;
        this.guard = guard;
        this.mode = mode;
    }

    @Override
    public void afterPropertiesSet() {
        for (String name : this.beanFactory.getBeanNamesForType(DataSource.class)) {
            DataSource dataSource = this.beanFactory.getBean(name, DataSource.class);
            if (FencedDataSourcePostProcessor.isFenced(dataSource)) {
                try {
                    initialize(name, dataSource);
                } catch (SQLException ex) {
                    throw new IllegalStateException(
                            "Could not check or create fence table '" + this.guard.table()
                                    + "' in the database of DataSource bean '" + name + "' (" + PROPERTY + "="
                                    + this.mode.name().toLowerCase(Locale.ROOT) + "): " + ex.getMessage(),
                            ex);
                }
            }
        }
    }

    private void initialize(String beanName, DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean embedded = isEmbedded(connection.getMetaData());
            if (this.mode == InitializationMode.ALWAYS || (this.mode == InitializationMode.EMBEDDED && embedded)) {
                this.guard.createTableIfMissing(connection);
                this.guard.protectTables(connection);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
                return;
            }
            if (!exists(connection)) {
                FenceDialect dialect = this.guard.dialect(connection);
                String why = (this.mode == InitializationMode.NEVER)
                        ? PROPERTY + " is 'never'"
                        : PROPERTY + " is 'embedded' and this database is not embedded";
                throw new IllegalStateException("Fence table '" + this.guard.table() + "' does not exist in the "
                        + dialect.displayName() + " database of DataSource bean '" + beanName + "', and " + why
                        + ". Create it in a migration (Flyway/Liquibase) with: "
                        + dialect.createTableSql(this.guard.table()) + " -- or set " + PROPERTY
                        + "=always to create it at startup, or fencelock.fencing.enabled=false to turn JDBC"
                        + " fencing off.");
            }
            List<String> unprotected = this.guard.unprotectedTables(connection);
            if (!unprotected.isEmpty()) {
                FenceDialect dialect = this.guard.dialect(connection);
                StringBuilder ddl = new StringBuilder();
                for (String table : unprotected) {
                    for (String statement : FenceProtection.ddl(dialect, this.guard.table(), table)) {
                        ddl.append(statement).append(";\n");
                    }
                }
                throw new IllegalStateException("Protected tables " + unprotected + " of DataSource bean '" + beanName
                        + "' (fencelock.fencing.jdbc.protected-tables) carry no fence trigger in this "
                        + dialect.displayName() + " database, and " + PROPERTY + " is '"
                        + this.mode.name().toLowerCase(Locale.ROOT) + "'. Add to the migrations (Flyway/Liquibase),"
                        + " after the tables are created:\n" + ddl + "-- or set " + PROPERTY + "=always.");
            }
        }
    }

    private boolean exists(Connection connection) throws SQLException {
        // The name is a validated identifier (FenceTable); a probe finds it exactly as the guard will.
        try (Statement statement = connection.createStatement()) {
            statement
                    .executeQuery("SELECT resource, token FROM " + this.guard.table() + " WHERE 1 = 0")
                    .close();
            return true;
        } catch (SQLException ex) {
            if (MISSING_TABLE_STATES.contains(ex.getSQLState()) || ex.getErrorCode() == 1146) {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                return false;
            }
            throw ex;
        }
    }

    /** In-memory H2, HSQLDB or Derby, as Spring Boot counts "embedded" for initialization. */
    static boolean isEmbedded(DatabaseMetaData metaData) throws SQLException {
        String product = String.valueOf(metaData.getDatabaseProductName()).toLowerCase(Locale.ROOT);
        String url = String.valueOf(metaData.getURL()).toLowerCase(Locale.ROOT);
        return ((product.equals("h2") || product.startsWith("hsql")) && url.contains(":mem:"))
                || (product.contains("derby") && url.contains(":memory:"));
    }
}
