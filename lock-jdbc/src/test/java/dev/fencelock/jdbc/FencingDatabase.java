package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The databases the end-to-end fencing tests write to: in-memory H2 and the local PostgreSQL and
 * MariaDB servers of scripts/start-databases.sh. An unreachable server fails the test; it is never
 * skipped. Sessions give up on a row lock after 5 s so a broken test cannot hang.
 */
enum FencingDatabase {
    H2 {
        @Override
        DataSource create() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:fencelock_zombie;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000");
            dataSource.setUser("sa");
            return dataSource;
        }

        @Override
        String url() {
            return "jdbc:h2:mem:fencelock_zombie";
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
    },
    MARIADB {
        @Override
        DataSource create() throws SQLException {
            String url = url();
            MariaDbDataSource dataSource = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?")
                    + "sessionVariables=innodb_lock_wait_timeout=30&connectTimeout=30000");
            dataSource.setUser(USER);
            dataSource.setPassword(USER);
            return dataSource;
        }

        @Override
        String url() {
            return env("FENCELOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/fencelock");
        }
    };

    private static final String USER = "fencelock";

    abstract DataSource create() throws SQLException;

    abstract String url();

    /** The database's data source, after proving it accepts a connection. */
    DataSource dataSource() {
        try {
            DataSource dataSource = create();
            try (Connection connection = dataSource.getConnection()) {
                connection.isValid(5);
            }
            return dataSource;
        } catch (SQLException ex) {
            throw new AssertionError(
                    this + " at " + url() + " is not reachable as user '" + USER + "' (" + ex.getMessage()
                            + "). Start the local servers with: sudo scripts/start-databases.sh"
                            + " (or set FENCELOCK_PG_URL / FENCELOCK_MARIADB_URL)",
                    ex);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return (value != null && !value.isBlank()) ? value : fallback;
    }
}
