package dev.fencelock.autoconfigure.fencing;

import javax.sql.DataSource;

/** Lets tests of other packages use the servers of {@code scripts/start-databases.sh}. */
public final class TestDatabaseAccess {

    private TestDatabaseAccess() {}

    /** The PostgreSQL data source; fails the calling test when the server does not answer. */
    public static DataSource postgresql() {
        return TestDatabase.POSTGRESQL.dataSource();
    }

    /** The MariaDB data source; fails the calling test when the server does not answer. */
    public static DataSource mariadb() {
        return TestDatabase.MARIADB.dataSource();
    }
}
