package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.jdbc.TransactionBoundary.Effect;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How the fenced connection reads SQL text for transaction boundaries, without a database. */
class TransactionBoundaryTest {

    private static final List<SqlText.Syntax> POSTGRESQL = List.of(SqlText.Syntax.POSTGRESQL);

    private static final List<SqlText.Syntax> MARIADB =
            List.of(SqlText.Syntax.MARIADB, SqlText.Syntax.MARIADB_NO_BACKSLASH_ESCAPES);

    private static final List<SqlText.Syntax> H2 = List.of(SqlText.Syntax.H2);

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "COMMIT | COMMIT",
                "commit work | COMMIT",
                "END | COMMIT",
                "COMMIT AND CHAIN | COMMIT",
                "ROLLBACK | ROLLBACK",
                "ROLLBACK TO SAVEPOINT s1 | ROLLBACK",
                "ABORT | ROLLBACK",
                "COMMIT PREPARED 'x' | NONE",
                "ROLLBACK PREPARED 'x' | NONE",
                "PREPARE TRANSACTION 'x' | COMMIT",
                "PREPARE s AS SELECT 1 | NONE",
                "BEGIN | COMMIT",
                "START TRANSACTION | COMMIT",
                "SET autocommit = 1 | COMMIT",
                "SET @@session.autocommit=1 | COMMIT",
                "SET a = 1, autocommit = 1 | COMMIT",
                "SET search_path = x | NONE",
                "SET TRANSACTION READ ONLY | NONE",
                "CREATE TABLE t (id INT) | COMMIT",
                "TRUNCATE t | COMMIT",
                "CALL p() | COMMIT",
                "{call p()} | COMMIT",
                "{? = call f()} | COMMIT",
                "EXECUTE s | COMMIT",
                "SAVEPOINT s1 | NONE",
                "RELEASE SAVEPOINT s1 | NONE",
                "SELECT 1 | NONE",
                "UPDATE t SET a = 'COMMIT' | NONE",
                "WITH x AS (SELECT 1) UPDATE t SET a = 1 | NONE",
                "(SELECT 1) | NONE",
            })
    void theLastStatementDecides(String sql, TransactionBoundary expected) {
        for (List<SqlText.Syntax> syntaxes : List.of(POSTGRESQL, MARIADB, H2)) {
            assertThat(TransactionBoundary.of(sql.replace("\\n", "\n"), syntaxes)
                            .last())
                    .as("%s read as %s", sql, syntaxes)
                    .isEqualTo(expected);
        }
    }

    @Test
    void commentsBeforeAStatementHideNothing() {
        assertThat(TransactionBoundary.of("  /* first */ -- line\n COMMIT", POSTGRESQL)
                        .last())
                .isEqualTo(TransactionBoundary.COMMIT);
        assertThat(TransactionBoundary.of("# line\n/* x */ COMMIT", MARIADB).last())
                .isEqualTo(TransactionBoundary.COMMIT);
        assertThat(TransactionBoundary.of("// line\nCOMMIT", H2).last()).isEqualTo(TransactionBoundary.COMMIT);
    }

    @Test
    void aCommitBetweenStatementsIsFoundWhereverItHides() {
        assertThat(endsBeforeLast("UPDATE t SET a = 1; COMMIT; UPDATE t SET a = 2", POSTGRESQL))
                .isTrue();
        assertThat(endsBeforeLast("UPDATE t SET a = 1;COMMIT;UPDATE t SET a = 2", H2))
                .isTrue();
        // MariaDB runs what an executable comment holds.
        assertThat(endsBeforeLast("/*!50000 COMMIT */; UPDATE t SET a = 2", MARIADB))
                .isTrue();
        assertThat(endsBeforeLast("UPDATE t SET a = 1 /*M! ; COMMIT */; UPDATE t SET a = 2", MARIADB))
                .isTrue();
        // A backslash ends no MariaDB string when NO_BACKSLASH_ESCAPES is on: read both ways.
        assertThat(endsBeforeLast("UPDATE t SET a = 'x\\'; COMMIT; UPDATE t SET b = '", MARIADB))
                .isTrue();
    }

    @Test
    void semicolonsInLiteralsAndCommentsSplitNothing() {
        assertThat(endsBeforeLast("UPDATE t SET a = 'x; COMMIT; y' WHERE id = 1", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("UPDATE t SET a = 'it''s; COMMIT' WHERE id = 1", H2))
                .isFalse();
        assertThat(endsBeforeLast("UPDATE \"odd;COMMIT\" SET a = 1", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("UPDATE `odd;COMMIT` SET a = 1", MARIADB)).isFalse();
        assertThat(endsBeforeLast("UPDATE t SET a = 1 -- ; COMMIT; x\n WHERE id = 1", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("UPDATE t SET a = 1 /* ; COMMIT; /* nested */ ; COMMIT */ WHERE id = 1", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("DO $$ BEGIN UPDATE t SET a = 1; COMMIT; END $$", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("DO $body$ BEGIN PERFORM 1; COMMIT; END $body$", POSTGRESQL))
                .isFalse();
        assertThat(endsBeforeLast("SELECT E'\\'; COMMIT; ' ", POSTGRESQL)).isFalse();
        assertThat(endsBeforeLast("SELECT $1; SELECT 2", POSTGRESQL)).isFalse();
    }

    @Test
    void textThatCannotBeSplitIsTrustedWithNothing() {
        Effect effect = TransactionBoundary.of("UPDATE t SET a = 'never closed; COMMIT", POSTGRESQL);
        assertThat(effect.last()).isEqualTo(TransactionBoundary.COMMIT);
        assertThat(effect.writes()).isTrue();
    }

    @Test
    void transactionControlWritesNothingSoTheGuardNeedNotRunBeforeIt() {
        assertThat(TransactionBoundary.of("ROLLBACK", POSTGRESQL).writes()).isFalse();
        assertThat(TransactionBoundary.of("COMMIT", POSTGRESQL).writes()).isFalse();
        assertThat(TransactionBoundary.of("CREATE TABLE t (id INT)", MARIADB).writes())
                .isTrue();
        assertThat(TransactionBoundary.of("CALL p()", MARIADB).writes()).isTrue();
    }

    @Test
    void aBatchEndsMidwayWhenAnyButItsLastTextEnds() {
        assertThat(TransactionBoundary.ofBatch(List.of("UPDATE t SET a = 1", "COMMIT", "UPDATE t SET a = 2"), H2)
                        .endsBeforeLast())
                .isTrue();
        Effect endsLast = TransactionBoundary.ofBatch(List.of("UPDATE t SET a = 1", "COMMIT"), H2);
        assertThat(endsLast.endsBeforeLast()).isFalse();
        assertThat(endsLast.last()).isEqualTo(TransactionBoundary.COMMIT);
    }

    private static boolean endsBeforeLast(String sql, List<SqlText.Syntax> syntaxes) {
        return TransactionBoundary.of(sql, syntaxes).endsBeforeLast();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SELECT qty FROM stock | true",
                "select 1; select 2 | true",
                "WITH x AS (SELECT 1) SELECT * FROM x | true",
                "SHOW TABLES | true",
                "EXPLAIN SELECT 1 | true",
                "SELECT 1; COMMIT | true",
                "UPDATE stock SET qty = 1 | false",
                "INSERT INTO stock VALUES (1) | false",
                "DELETE FROM stock | false",
                "MERGE INTO stock USING x ON 1 = 1 WHEN MATCHED THEN DELETE | false",
                "SELECT 1; UPDATE stock SET qty = 1 | false",
                "CALL p() | false",
                "SELECT 'unterminated | false",
            })
    void onlyStatementsThatReadCountAsReads(String sql, boolean readsOnly) {
        for (List<SqlText.Syntax> syntaxes : List.of(POSTGRESQL, MARIADB, H2)) {
            assertThat(TransactionBoundary.of(sql, syntaxes).readsOnly())
                    .as("%s read as %s", sql, syntaxes)
                    .isEqualTo(readsOnly);
        }
        assertThat(Effect.OPAQUE_CALL.readsOnly()).isFalse();
    }
}
