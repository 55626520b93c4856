package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Runs SQL text on a real server inside a transaction that has already written mark row 0, and
 * observes what the server did to that transaction — not what anyone's reading of the text says:
 *
 * <ul>
 *   <li>whether the transaction ended (mark 0 is committed, or gone), or is still open (mark 0 is
 *       visible to this session only), or failed and waits for a rollback;
 *   <li>whether a mark was written in another transaction than mark 0's, by the server's own
 *       transaction id stored with each mark: a write after the end.
 * </ul>
 */
final class TransactionOracle implements AutoCloseable {

    /** What the server did with one text. */
    record Observation(
            Set<Integer> marks,
            boolean ended,
            boolean wroteAfterEnd,
            boolean committedAfterEnd,
            boolean wrote,
            boolean failed,
            @Nullable String error) {}

    private final FuzzTarget target;

    private final Connection session;

    private final Connection observer;

    private final String marks;

    private int texts;

    TransactionOracle(FuzzTarget target, String suffix) throws SQLException {
        this.target = target;
        this.session = target.session();
        this.observer = target.observer();
        this.marks = "fz_" + suffix;
        try (Statement statement = this.observer.createStatement()) {
            statement.execute(target.marksTable(this.marks));
            statement.execute("CREATE TABLE IF NOT EXISTS fz_scratch (a INT)");
        }
    }

    /** The statement that writes mark {@code k}, with the id of the transaction it runs in where the database can say. */
    String write(int k) {
        return this.target.writeMark(this.marks, k);
    }

    Observation run(String text) throws SQLException {
        try (Statement statement = this.observer.createStatement()) {
            statement.execute("DELETE FROM " + this.marks);
            if (++this.texts % 500 == 0) {
                this.target.afterMany(statement, this.marks);
            }
        }
        this.session.setAutoCommit(true);
        try (Statement statement = this.session.createStatement()) {
            for (String setup : this.target.setup()) {
                statement.execute(setup);
            }
        }
        this.session.setAutoCommit(false);
        String original;
        try (Statement statement = this.session.createStatement()) {
            statement.executeUpdate(write(0));
            original = this.target.transactionOf(statement, this.marks);
        }
        String error = null;
        try (Statement statement = this.session.createStatement()) {
            statement.setQueryTimeout(10);
            statement.execute(text);
            while (statement.getMoreResults() || statement.getUpdateCount() != -1) {
                // Drain every result, so that each statement of the text has run.
            }
        } catch (SQLException ex) {
            error = ex.getSQLState() + " " + ex.getMessage();
        }
        Map<Integer, String> committed = marks(this.observer);
        Map<Integer, String> seen = null;
        try {
            seen = marks(this.session);
        } catch (SQLException failedTransaction) {
            // PostgreSQL: the transaction failed and refuses everything until it is rolled back.
        }
        Boolean open = this.target.isOpen(this.observer, original);
        try {
            this.session.rollback();
        } catch (SQLException ignored) {
            // The server may have closed the transaction in a way the driver did not follow.
        }
        this.target.reset(this.session);
        boolean failed = seen == null;
        boolean pending = (open != null) ? open : seen != null && seen.containsKey(0) && !committed.containsKey(0);
        boolean ended = !pending && (open != null || !failed);
        Set<Integer> written = new HashSet<>(committed.keySet());
        if (seen != null) {
            written.addAll(seen.keySet());
        }
        written.remove(0);
        boolean wrote = false;
        boolean wroteAfterEnd = false;
        boolean committedAfterEnd = false;
        for (Map<Integer, String> view : (seen != null) ? List.of(committed, seen) : List.of(committed)) {
            for (Map.Entry<Integer, String> mark : view.entrySet()) {
                if (mark.getKey() > 0) {
                    boolean after = !Objects.equals(mark.getValue(), original);
                    wrote = true;
                    wroteAfterEnd |= after;
                    committedAfterEnd |= after && view == committed;
                }
            }
        }
        return new Observation(written, ended, wroteAfterEnd, committedAfterEnd, wrote, failed, error);
    }

    private Map<Integer, String> marks(Connection connection) throws SQLException {
        Map<Integer, String> marks = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT k, tx FROM " + this.marks)) {
            while (rows.next()) {
                marks.put(rows.getInt(1), rows.getString(2));
            }
        }
        return marks;
    }

    @Override
    public void close() throws SQLException {
        // The session first: a table lock or transaction left by the last text would hold up the drops.
        this.session.close();
        try (Connection observer = this.observer;
                Statement statement = observer.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + this.marks);
            statement.execute("DROP TABLE IF EXISTS fz_scratch");
            statement.execute("DROP TABLE IF EXISTS fz_ddl");
        }
    }
}
