package dev.fencelock.autoconfigure.fencing;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/** The PostgreSQL and MariaDB servers of {@code scripts/start-databases.sh}. */
enum TestDatabase {
    POSTGRESQL("FENCELOCK_PG_URL", "jdbc:postgresql://127.0.0.1:5432/fencelock", new org.postgresql.Driver()),

    MARIADB("FENCELOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/fencelock", new org.mariadb.jdbc.Driver());

    private final String url;

    private final java.sql.Driver driver;

    TestDatabase(String variable, String defaultUrl, java.sql.Driver driver) {
        String configured = System.getenv(variable);
        this.url = (configured != null && !configured.isBlank()) ? configured : defaultUrl;
        this.driver = driver;
    }

    String url() {
        return this.url;
    }

    /**
     * A new (unpooled) data source. An unreachable server fails the test rather than skipping it: a
     * skipped database is an untested dialect.
     */
    DataSource dataSource() {
        DataSource dataSource = new SimpleDriverDataSource(this.driver, this.url, "fencelock", "fencelock");
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.isValid(2)) {
                throw new AssertionError(this + " not reachable at " + this.url);
            }
        } catch (SQLException ex) {
            throw new AssertionError(
                    this + " not reachable at " + this.url + " (start it with: bash scripts/start-databases.sh)", ex);
        }
        return dataSource;
    }
}
