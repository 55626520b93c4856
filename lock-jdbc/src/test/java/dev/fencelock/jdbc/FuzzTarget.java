package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A real server with one set of lexical settings, as the differential tests run SQL text on it:
 * each of PostgreSQL's {@code standard_conforming_strings} with the driver's extended protocol
 * (the driver splits the text) and with its simple protocol (the server splits it), each
 * combination of MariaDB's {@code NO_BACKSLASH_ESCAPES} and {@code ANSI_QUOTES}, and H2 in its
 * regular and MSSQLServer modes.
 */
enum FuzzTarget {
    POSTGRESQL_DRIVER_SPLITS(SqlText.Family.POSTGRESQL, "", "on"),
    POSTGRESQL_DRIVER_SPLITS_BACKSLASH_STRINGS(SqlText.Family.POSTGRESQL, "", "off"),
    POSTGRESQL_SERVER_SPLITS(SqlText.Family.POSTGRESQL, "preferQueryMode=simple", "on"),
    POSTGRESQL_SERVER_SPLITS_BACKSLASH_STRINGS(SqlText.Family.POSTGRESQL, "preferQueryMode=simple", "off"),
    MARIADB_DEFAULT(SqlText.Family.MARIADB, "", "STRICT_TRANS_TABLES"),
    MARIADB_NO_BACKSLASH_ESCAPES(SqlText.Family.MARIADB, "", "STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES"),
    MARIADB_ANSI_QUOTES(SqlText.Family.MARIADB, "", "STRICT_TRANS_TABLES,ANSI_QUOTES"),
    MARIADB_ANSI_QUOTES_NO_BACKSLASH_ESCAPES(
            SqlText.Family.MARIADB, "", "STRICT_TRANS_TABLES,ANSI_QUOTES,NO_BACKSLASH_ESCAPES"),
    H2_REGULAR(SqlText.Family.H2, "", "REGULAR"),
    H2_MSSQLSERVER(SqlText.Family.H2, "", "MSSQLServer");

    final SqlText.Family family;

    private final String parameters;

    private final String setting;

    FuzzTarget(SqlText.Family family, String parameters, String setting) {
        this.family = family;
        this.parameters = parameters;
        this.setting = setting;
    }

    /** The connection the texts run on. */
    Connection session() throws SQLException {
        return connect(this.parameters);
    }

    /** A second connection, which sees only what the session committed. */
    Connection observer() throws SQLException {
        return connect("");
    }

    /** Statements run in auto-commit before each text: the lexical settings, and a clean session. */
    List<String> setup() {
        return switch (this.family) {
            case POSTGRESQL -> List.of("SET standard_conforming_strings = " + this.setting);
            case MARIADB -> List.of("UNLOCK TABLES", "SET SESSION sql_mode = '" + this.setting + "'");
            case H2 -> List.of("SET MODE " + this.setting);
            default -> throw new IllegalStateException();
        };
    }

    /** The mark table: a mark number and the id of the transaction that wrote it. */
    String marksTable(String name) {
        return switch (this.family) {
            // MariaDB says which transaction wrote a row only in a transaction-precise versioned table.
            case MARIADB ->
                "CREATE TABLE IF NOT EXISTS " + name + " (k INT, tx BIGINT UNSIGNED GENERATED ALWAYS AS"
                        + " ROW START INVISIBLE, te BIGINT UNSIGNED GENERATED ALWAYS AS ROW END INVISIBLE,"
                        + " PERIOD FOR SYSTEM_TIME(tx, te)) WITH SYSTEM VERSIONING ENGINE=InnoDB";
            default -> "CREATE TABLE IF NOT EXISTS " + name + " (k INT, tx BIGINT)";
        };
    }

    /** The statement that writes mark {@code k}; the word {@code m<k>} in it lets a reading of the text find it. */
    /** The statement that writes mark {@code k}; its word {@code m<k>} lets a reading of the text find it. */
    String writeMark(String table, int k) {
        return switch (this.family) {
            case POSTGRESQL -> "INSERT INTO " + table + " SELECT " + k + " AS m" + k + ", txid_current()";
            case MARIADB -> "INSERT INTO " + table + " (k) SELECT " + k + " AS m" + k;
            // NULL in the first write of a transaction, its id in the later ones; mark 0 is the first.
            case H2 -> "INSERT INTO " + table + " SELECT " + k + " AS m" + k + ", TRANSACTION_ID()";
            default -> throw new IllegalStateException();
        };
    }

    /** The id of the session's transaction, which has just written mark 0. */
    String transactionOf(Statement statement, String table) throws SQLException {
        String sql = (this.family == SqlText.Family.H2)
                ? "SELECT TRANSACTION_ID()"
                : "SELECT tx FROM " + table + " WHERE k = 0";
        try (ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    /**
     * Whether the transaction with id {@code original} is still open, asked of the server, or
     * {@code null} where the server cannot tell (then the mark rows' visibility decides).
     */
    @Nullable
    Boolean isOpen(Connection observer, String original) throws SQLException {
        if (this.family != SqlText.Family.POSTGRESQL) {
            return null;
        }
        try (Statement statement = observer.createStatement();
                ResultSet rows = statement.executeQuery("SELECT pg_xact_status('" + original + "'::xid8)")) {
            rows.next();
            return "in progress".equals(rows.getString(1));
        }
    }

    /** After a text: undo what it may have left in the session. */
    void reset(Connection session) throws SQLException {
        session.setAutoCommit(true);
    }

    /** Every few hundred texts: MariaDB keeps every deleted mark as history. */
    void afterMany(Statement statement, String table) throws SQLException {
        if (this.family == SqlText.Family.MARIADB) {
            statement.execute("DELETE HISTORY FROM " + table);
        }
    }

    private Connection connect(String parameters) throws SQLException {
        TestDatabase database = switch (this.family) {
            case POSTGRESQL -> TestDatabase.POSTGRESQL;
            case MARIADB -> TestDatabase.MARIADB;
            default -> TestDatabase.H2;
        };
        String url = switch (this.family) {
            case H2 -> "jdbc:h2:mem:fencelock_fuzz;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000";
            case MARIADB ->
                database.url() + (database.url().contains("?") ? "&" : "?")
                        + "allowMultiQueries=true&sessionVariables=innodb_lock_wait_timeout=5";
            default ->
                database.url() + (parameters.isEmpty() ? "" : (database.url().contains("?") ? "&" : "?") + parameters);
        };
        String user = (this.family == SqlText.Family.H2) ? "sa" : "fencelock";
        String password = (this.family == SqlText.Family.H2) ? "" : "fencelock";
        return DriverManager.getConnection(url, user, password);
    }
}
