package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The databases the JDBC fencing tests run against. PostgreSQL and MariaDB are real local servers
 * (scripts/start-databases.sh); an unreachable one fails the test instead of skipping it, because
 * a skipped database is an untested dialect. Every session waits at most 5 s for a row lock, so a
 * broken test fails instead of hanging.
 */
enum TestDatabase {
    H2 {
        @Override
        DataSource create() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:fencelock_jdbc;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000");
            dataSource.setUser("sa");
            return dataSource;
        }

        @Override
        String url() {
            return "jdbc:h2:mem:fencelock_jdbc";
        }

        @Override
        String schema() {
            return "PUBLIC";
        }
    },
    POSTGRESQL {
        @Override
        DataSource create() {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(url());
            dataSource.setUser(USER);
            dataSource.setPassword(USER);
            // Lock waits and connects give up after 30 s: limits for a hung test, not measures of speed.
            dataSource.setOptions("-c lock_timeout=30000");
            dataSource.setConnectTimeout(30);
            return dataSource;
        }

        @Override
        String url() {
            return env("FENCELOCK_PG_URL", "jdbc:postgresql://127.0.0.1:5432/fencelock");
        }

        @Override
        String schema() {
            return "public";
        }
    },
    MARIADB {
        @Override
        DataSource create() throws SQLException {
            String url = url();
            String separator = url.contains("?") ? "&" : "?";
            MariaDbDataSource dataSource = new MariaDbDataSource(
                    url + separator + "sessionVariables=innodb_lock_wait_timeout=30&connectTimeout=30000");
            dataSource.setUser(USER);
            dataSource.setPassword(USER);
            return dataSource;
        }

        @Override
        String url() {
            return env("FENCELOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/fencelock");
        }

        @Override
        String schema() {
            return "fencelock";
        }
    };

    private static final String USER = "fencelock";

    private static final Map<TestDatabase, DataSource> REACHABLE = new ConcurrentHashMap<>();

    abstract DataSource create() throws SQLException;

    abstract String url();

    /** A schema the test user may create tables in, for schema-qualified fence tables. */
    abstract String schema();

    FenceDialect dialect() {
        return FenceDialect.valueOf(name());
    }

    /** The database's data source, after proving it accepts a connection. */
    DataSource dataSource() {
        return REACHABLE.computeIfAbsent(this, database -> {
            try {
                DataSource dataSource = database.create();
                try (Connection connection = dataSource.getConnection()) {
                    connection.isValid(5);
                }
                return dataSource;
            } catch (SQLException ex) {
                throw new AssertionError(
                        database + " at " + database.url() + " is not reachable as user '" + USER + "' ("
                                + ex.getMessage() + "). Start the local servers with: sudo scripts/start-databases.sh"
                                + " (or set FENCELOCK_PG_URL / FENCELOCK_MARIADB_URL)",
                        ex);
            }
        });
    }

    /** MariaDB with several statements allowed in one execute, which the driver refuses by default. */
    DataSource multiQueryDataSource() throws SQLException {
        if (this != MARIADB) {
            throw new IllegalStateException("only MariaDB needs a multi-query data source");
        }
        String url = url();
        MariaDbDataSource dataSource = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?")
                + "allowMultiQueries=true&sessionVariables=innodb_lock_wait_timeout=30&connectTimeout=30000");
        dataSource.setUser(USER);
        dataSource.setPassword(USER);
        return dataSource;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return (value != null && !value.isBlank()) ? value : fallback;
    }
}
