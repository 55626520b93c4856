package dev.fencelock.jdbc;

import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the fence guard reads one database's SQL text: its family's readers and statement rules,
 * and for MariaDB the server version that decides which versioned comments run.
 *
 * @param family the database family
 * @param versions the server versions to read MariaDB text with ({@code 101119} for 10.11.19); two
 *     readings ({@code 0}: every versioned comment runs, {@code -1}: none does) where the server's
 *     own rule is unknown (MySQL); {@code {0}} for the other families, which have no such comments
 */
record SqlReader(SqlText.Family family, int[] versions) {

    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)\\.(\\d+)");

    /** The reader for a database without a fence dialect: every reader, the most careful rules. */
    static final SqlReader UNKNOWN = new SqlReader(SqlText.Family.UNKNOWN, new int[] {0, -1});

    /** What running {@code texts} (one text, or a batch) does to the transaction. */
    TransactionBoundary.Effect effectOf(List<String> texts) {
        TransactionBoundary.Effect effect = null;
        for (int version : this.versions) {
            TransactionBoundary.Effect reading = TransactionBoundary.ofBatch(texts, this.family, version);
            effect = (effect == null) ? reading : effect.or(reading);
        }
        return effect;
    }

    /** The reader for {@code connection}'s database, as {@code guard}'s dialect and the server's version say. */
    static SqlReader of(Connection connection, FenceGuard guard) throws SQLException {
        FenceDialect dialect;
        try {
            dialect = guard.dialect(connection);
        } catch (LockException unsupported) {
            return UNKNOWN;
        }
        if (dialect != FenceDialect.MARIADB) {
            return new SqlReader(dialect.family(), new int[] {0});
        }
        DatabaseMetaData metadata = connection.getMetaData();
        String product = String.valueOf(metadata.getDatabaseProductName()).toLowerCase(Locale.ROOT);
        Matcher version = VERSION.matcher(String.valueOf(metadata.getDatabaseProductVersion()));
        if (!product.contains("mariadb") || !version.find()) {
            return new SqlReader(SqlText.Family.MARIADB, new int[] {0, -1});
        }
        int id = Integer.parseInt(version.group(1)) * 10000
                + Integer.parseInt(version.group(2)) * 100
                + Integer.parseInt(version.group(3));
        return new SqlReader(SqlText.Family.MARIADB, new int[] {id});
    }
}
