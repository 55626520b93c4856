package dev.fencelock.verification.checker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    /** The file {@link #write} keeps the history table's rows in. */
    public static final String WRITES_FILE = "committed.csv";

    /** The file {@link #write} keeps the counters in. */
    public static final String COUNTERS_FILE = "counters.csv";

    /** Keeps the snapshot beside the run's histories, so the run can be checked again after its tables are gone. */
    public void write(Path directory) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("key,token,worker,op_id,value_read,value_written,commit_seq");
        for (CommittedWrite w : writes) {
            lines.add(String.join(
                    ",",
                    plain(w.key()),
                    Long.toString(w.token()),
                    plain(w.worker()),
                    plain(w.operationId()),
                    Long.toString(w.valueRead()),
                    Long.toString(w.valueWritten()),
                    Long.toString(w.commitOrder())));
        }
        Files.write(directory.resolve(WRITES_FILE), lines, StandardCharsets.UTF_8);
        List<String> counterLines = new ArrayList<>();
        counterLines.add("key,value");
        new TreeMap<>(counters).forEach((key, value) -> counterLines.add(plain(key) + "," + value));
        Files.write(directory.resolve(COUNTERS_FILE), counterLines, StandardCharsets.UTF_8);
    }

    /** Reads what {@link #write} kept. */
    public static DatabaseSnapshot read(Path directory) throws IOException {
        List<CommittedWrite> writes = new ArrayList<>();
        List<String> lines = Files.readAllLines(directory.resolve(WRITES_FILE), StandardCharsets.UTF_8);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            writes.add(new CommittedWrite(
                    f[0],
                    Long.parseLong(f[1]),
                    f[2],
                    f[3],
                    Long.parseLong(f[4]),
                    Long.parseLong(f[5]),
                    Long.parseLong(f[6])));
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        List<String> counterLines = Files.readAllLines(directory.resolve(COUNTERS_FILE), StandardCharsets.UTF_8);
        for (String line : counterLines.subList(1, counterLines.size())) {
            String[] f = line.split(",", -1);
            counters.put(f[0], Long.parseLong(f[1]));
        }
        return new DatabaseSnapshot(List.copyOf(writes), Map.copyOf(counters));
    }

    private static String plain(String field) {
        if (field.contains(",") || field.contains("\n")) {
            throw new IllegalArgumentException("not a plain CSV field: " + field);
        }
        return field;
    }

    private static String identifier(String name) {
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("not a plain table name: " + name);
        }
        return name;
    }
}
