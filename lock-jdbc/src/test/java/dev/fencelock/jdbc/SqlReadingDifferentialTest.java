package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Differential fuzzing of the fence guard's reading of SQL text against the real servers. Each
 * random text runs on the server inside a transaction that has written a mark row, and the server's
 * own answer (was the transaction ended? did a write land in another transaction?) is compared with
 * what the guard concludes from the text alone, without a database. The guard may be more careful
 * than the server, never less:
 *
 * <ul>
 *   <li>where the server ended the transaction, the guard refuses the text or knows it may end it
 *       (unless the text failed: after any error the guard presents its fences again);
 *   <li>where the server wrote after ending it, the guard refuses the text (unless the text failed
 *       before that write committed: the next statement presents the fences in the transaction
 *       holding the write, before it can commit);
 *   <li>where the server wrote at all, the guard runs before the text (or refuses it).
 * </ul>
 *
 * <p>CI runs {@value #CI_TEXTS} texts per server setting. The long run takes {@code
 * -Dfencelock.fuzz.texts=N} (with {@code -Dfencelock.fuzz.seed=S} to replay a run and {@code
 * -Dfencelock.fuzz.targets=A,B} to pick server settings) and writes its figures
 * to {@code target/sql-fuzz/}; docs/verification.md has the command and the last long run.
 */
class SqlReadingDifferentialTest {

    private static final int CI_TEXTS = 400;

    @ParameterizedTest
    @EnumSource(FuzzTarget.class)
    void theGuardKnowsEveryEndOfATransactionThatTheServerMakes(FuzzTarget target) throws Exception {
        String only = System.getProperty("fencelock.fuzz.targets", "");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                only.isEmpty() || List.of(only.split(",")).contains(target.name()), "only " + only + " selected");
        int texts = Integer.getInteger("fencelock.fuzz.texts", CI_TEXTS);
        long seed = Long.getLong("fencelock.fuzz.seed", System.nanoTime());
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        Tally tally = new Tally(target, seed);
        long started = System.nanoTime();
        try (TransactionOracle oracle = new TransactionOracle(target, suffix)) {
            SqlReader reader = reader(target);
            SqlTextGenerator generator = new SqlTextGenerator(target.family, oracle::write, seed);
            for (int i = 0; i < texts; i++) {
                String text = generator.next();
                TransactionBoundary.Effect effect = reader.effectOf(List.of(text));
                TransactionOracle.Observation server = oracle.run(text);
                tally.add(text, effect, server, unseen(server, reader, text, generator));
            }
        }
        tally.report(Duration.ofNanos(System.nanoTime() - started));
        assertThat(tally.misses)
                .as(
                        "texts where the server ended the transaction or wrote after ending it and the guard did not know"
                                + " (seed %d, replay with -Dfencelock.fuzz.seed=%d)",
                        seed, seed)
                .isEmpty();
    }

    /**
     * The first mark the server wrote from a statement that no reading of the guard shows as a
     * statement of its own ({@code INSERT … m<k>}), or 0: the server saw a statement where every
     * reader saw a literal or a comment.
     */
    private static int unseen(
            TransactionOracle.Observation server, SqlReader reader, String text, SqlTextGenerator generator) {
        for (int mark : server.marks()) {
            if (generator.isHidden(mark)) {
                continue;
            }
            String word = "M" + mark;
            boolean seen = false;
            for (SqlText.Syntax syntax : SqlText.Syntax.of(reader.family())) {
                for (int version : reader.versions()) {
                    for (SqlText.Statement statement :
                            SqlText.split(text, syntax, version).statements()) {
                        // A fragment of noise may stick to the word (m5$$ is one identifier on MariaDB).
                        seen |= statement.tokens().stream().anyMatch(token -> token.startsWith(word))
                                && (statement.first().equals("INSERT")
                                        || statement.first().equals("SET"));
                    }
                }
            }
            if (!seen) {
                return mark;
            }
        }
        return 0;
    }

    private static SqlReader reader(FuzzTarget target) throws SQLException {
        try (java.sql.Connection connection = target.observer()) {
            return SqlReader.of(connection, FenceGuard.create());
        }
    }

    /** The counts of one run, and every text where the guard knew less than the server did. */
    private static final class Tally {

        final List<String> misses = new ArrayList<>();

        private final FuzzTarget target;

        private final long seed;

        private int texts;

        private int errors;

        private int ended;

        private int wroteAfterEnd;

        private int failed;

        private int refused;

        private int knownEnds;

        Tally(FuzzTarget target, long seed) {
            this.target = target;
            this.seed = seed;
        }

        void add(String text, TransactionBoundary.Effect effect, TransactionOracle.Observation server, int unseen) {
            this.texts++;
            boolean procedureRefused = effect.procedure() && this.target.family != SqlText.Family.POSTGRESQL;
            boolean refused = effect.endsBeforeLast() || effect.refusal() != null || procedureRefused;
            boolean knowsEnd = refused || effect.last().ends();
            this.refused += refused ? 1 : 0;
            this.knownEnds += knowsEnd ? 1 : 0;
            this.errors += (server.error() != null) ? 1 : 0;
            this.ended += server.ended() ? 1 : 0;
            this.wroteAfterEnd += server.wroteAfterEnd() ? 1 : 0;
            this.failed += server.failed() ? 1 : 0;
            String miss = null;
            boolean clean = server.error() == null;
            if (unseen > 0) {
                miss = "the server ran a statement (mark " + unseen + ") that no reading of the guard shows";
            } else if ((server.committedAfterEnd() || (server.wroteAfterEnd() && clean)) && !refused) {
                miss = "the server wrote after ending the transaction; the guard let the text run";
            } else if (server.ended() && clean && !knowsEnd) {
                miss = "the server ended the transaction; the guard took it for still open";
            } else if (server.wrote() && !effect.writes() && !refused) {
                miss = "the server wrote; the guard would not have run before the text";
            }
            if (miss != null) {
                this.misses.add(miss + ": " + escaped(text) + " (guard: " + effect + "; server: " + server + ")");
            }
        }

        void report(Duration took) throws IOException {
            String line = String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d s | %d |",
                    this.target,
                    this.seed,
                    this.texts,
                    this.errors,
                    this.ended,
                    this.wroteAfterEnd,
                    this.failed,
                    this.knownEnds,
                    this.refused,
                    took.toSeconds(),
                    this.misses.size());
            System.out.println("SQL reading against " + this.target + ": " + line);
            this.misses.stream().limit(20).forEach(System.out::println);
            Path directory = Path.of("target", "sql-fuzz");
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(this.target + ".md"), line + System.lineSeparator());
        }

        private static String escaped(String text) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                switch (c) {
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    default -> {
                        if (c < 0x20 || c > 0x7E) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            return out.append('"').toString();
        }
    }
}
