package dev.fencelock.verification.checker;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The database at the end of a run: every committed history row and every counter.
 *
 * @param writes the history table's rows
 * @param counters each counter's final value by key
 */
public record DatabaseSnapshot(List<CommittedWrite> writes, Map<String, Long> counters) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /**
     * Reads the history table ({@code key, token, worker, op_id, value_read, value_written, commit_seq}) and the
     * counter table ({@code key, value}) over a plain JDBC connection.
     */
    public static DatabaseSnapshot read(Connection connection, String historyTable, String counterTable)
            throws SQLException {
        List<CommittedWrite> writes = new ArrayList<>();
        Map<String, Long> counters = new LinkedHashMap<>();
        try (Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery(
                    "SELECT key, token, worker, op_id, value_read, value_written, commit_seq FROM "
                            + identifier(historyTable) + " ORDER BY commit_seq")) {
                while (rows.next()) {
                    writes.add(new CommittedWrite(
                            rows.getString(1),
                            rows.getLong(2),
                            rows.getString(3),
                            rows.getString(4),
                            rows.getLong(5),
                            rows.getLong(6),
                            rows.getLong(7)));
                }
            }
            try (ResultSet rows =
                    statement.executeQuery("SELECT key, value FROM " + identifier(counterTable) + " ORDER BY key")) {
                while (rows.next()) {
                    counters.put(rows.getString(1), rows.getLong(2));
                }
            }
        }
        return new DatabaseSnapshot(List.copyOf(writes), Map.copyOf(counters));
    }

    private static String identifier(String name) {
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("not a plain table name: " + name);
        }
        return name;
    }
}
