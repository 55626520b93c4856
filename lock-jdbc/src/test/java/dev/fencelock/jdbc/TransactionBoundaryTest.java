package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.jdbc.SqlText.Family;
import dev.fencelock.jdbc.TransactionBoundary.Effect;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** How the fenced connection reads SQL text for transaction boundaries, without a database. */
class TransactionBoundaryTest {

    private static final Family POSTGRESQL = Family.POSTGRESQL;

    private static final Family MARIADB = Family.MARIADB;

    private static final Family H2 = Family.H2;

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
                "PREPARE s AS SELECT 1 | COMMIT",
                "BEGIN | COMMIT",
                "START TRANSACTION | COMMIT",
                "SET autocommit = 1 | COMMIT",
                "SET @@session.autocommit=1 | COMMIT",
                "SET a = 1, autocommit = 1 | COMMIT",
                "CREATE TABLE t (id INT) | COMMIT",
                "TRUNCATE t | COMMIT",
                "SAVEPOINT s1 | NONE",
                "RELEASE SAVEPOINT s1 | NONE",
                "SELECT 1 | NONE",
                "UPDATE t SET a = 'COMMIT' | NONE",
                "WITH x AS (SELECT 1) UPDATE t SET a = 1 | NONE",
                "(SELECT 1) | NONE",
            })
    void theLastStatementDecides(String sql, TransactionBoundary expected) {
        for (Family family : List.of(POSTGRESQL, MARIADB, H2)) {
            assertThat(of(sql.replace("\\n", "\n"), family).last())
                    .as("%s read as %s", sql, family)
                    .isEqualTo(expected);
        }
    }

    @Test
    void commentsBeforeAStatementHideNothing() {
        assertThat(of("  /* first */ -- line\n COMMIT", POSTGRESQL).last()).isEqualTo(TransactionBoundary.COMMIT);
        assertThat(of("# line\n/* x */ COMMIT", MARIADB).last()).isEqualTo(TransactionBoundary.COMMIT);
        assertThat(of("// line\nCOMMIT", H2).last()).isEqualTo(TransactionBoundary.COMMIT);
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
        Effect effect = of("UPDATE t SET a = 'never closed; COMMIT", POSTGRESQL);
        assertThat(effect.last()).isEqualTo(TransactionBoundary.COMMIT);
        assertThat(effect.writes()).isTrue();
    }

    @Test
    void transactionControlWritesNothingSoTheGuardNeedNotRunBeforeIt() {
        assertThat(of("ROLLBACK", POSTGRESQL).writes()).isFalse();
        assertThat(of("COMMIT", POSTGRESQL).writes()).isFalse();
        assertThat(of("CREATE TABLE t (id INT)", MARIADB).writes()).isTrue();
        assertThat(of("CALL p()", MARIADB).writes()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "CALL p() | POSTGRESQL | NONE | false",
                "{call p()} | POSTGRESQL | NONE | false",
                "EXECUTE s | POSTGRESQL | NONE | false",
                "DO $$ BEGIN PERFORM 1; END $$ | POSTGRESQL | NONE | false",
                "CALL p() | MARIADB | COMMIT | true",
                "{call p()} | MARIADB | COMMIT | true",
                "{? = call f()} | MARIADB | COMMIT | true",
                "EXECUTE s | MARIADB | COMMIT | true",
                "BEGIN NOT ATOMIC UPDATE t SET a = 1; END | MARIADB | COMMIT | true",
                "SET STATEMENT max_statement_time = 5 FOR CALL p() | MARIADB | COMMIT | true",
                "CALL p() | H2 | COMMIT | true",
            })
    void aProcedureMayCommitOnMariaDbAndH2ButNotOnPostgresql(
            String sql, Family family, TransactionBoundary last, boolean procedure) {
        Effect effect = of(sql, family);
        assertThat(effect.last()).as(sql).isEqualTo(last);
        assertThat(effect.procedure()).as(sql).isEqualTo(procedure);
        assertThat(effect.writes()).as(sql).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // Not a setting at all: a statement after FOR, a function that may write, an implicit commit.
                "SET STATEMENT max_statement_time = 5 FOR UPDATE t SET a = 1 | MARIADB | true | NONE",
                "SET @v = f() | MARIADB | true | COMMIT",
                "SET PASSWORD = PASSWORD('x') | MARIADB | true | COMMIT",
                "SET ROLE admin | MARIADB | true | COMMIT",
                "SET @v = 1 | MARIADB | false | NONE",
                "SET SESSION sql_mode = 'ANSI_QUOTES' | MARIADB | false | NONE",
                "SET autocommit = 0 | MARIADB | false | COMMIT",
                "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE | MARIADB | false | NONE",
                "SET search_path TO other | POSTGRESQL | true | COMMIT",
                "SET ROLE admin | POSTGRESQL | true | COMMIT",
                "SET LOCAL statement_timeout = '5s' | POSTGRESQL | false | NONE",
                "SET TRANSACTION READ ONLY | POSTGRESQL | false | NONE",
                "SET SCHEMA other | H2 | true | COMMIT",
                "SET @v = 1 | H2 | false | NONE",
                "SET @v = f(1) | H2 | true | COMMIT",
                "SET LOCK_TIMEOUT 1000 | H2 | false | NONE",
                "SET AUTOCOMMIT TRUE | H2 | false | COMMIT",
                // H2 commits before it changes the transaction's characteristics.
                "SET TRANSACTION READ ONLY | H2 | false | COMMIT",
                "SET TRANSACTION READ ONLY | MARIADB | false | NONE",
            })
    void onlyRecognisedSettingsRunUnguarded(String sql, Family family, boolean guarded, TransactionBoundary last) {
        Effect effect = of(sql, family);
        assertThat(effect.writes()).as("%s guarded", sql).isEqualTo(guarded);
        assertThat(effect.last()).as("%s ends", sql).isEqualTo(last);
    }

    @Test
    void aCharacterSetChangeIsRefusedOnMariaDb() {
        assertThat(of("SET NAMES gbk", MARIADB).refusal()).contains("character set");
        assertThat(of("SET character_set_client = sjis", MARIADB).refusal()).contains("character set");
        assertThat(of("SET NAMES 'UTF8'", POSTGRESQL).refusal()).isNull();
    }

    static Stream<Arguments> textsThatOneReaderSplitsAroundACommit() {
        return Stream.of(
                // The servers end -- and // comments at a carriage return too.
                Arguments.of("UPDATE t SET a = 1 --x\r; COMMIT; UPDATE t SET a = 2", POSTGRESQL),
                Arguments.of("UPDATE t SET a = 1 --x\r; COMMIT; UPDATE t SET a = 2", H2),
                Arguments.of("UPDATE t SET a = 1 //x\r; COMMIT; UPDATE t SET a = 2", H2),
                // MariaDB: -- is a comment only before white space; here it is minus minus one.
                Arguments.of("UPDATE t SET a = 3 --1; COMMIT; UPDATE t SET a = 2", MARIADB),
                // The driver reads E'…' with escapes only after a character that ends an identifier;
                // the server after anything that is not part of one.
                Arguments.of("UPDATE t SET a = 'x'E'\\'; COMMIT; UPDATE t SET b = '", POSTGRESQL),
                Arguments.of("E'\\'; COMMIT; UPDATE t SET b = '", POSTGRESQL),
                // The server starts a dollar quote right after a number; the driver does not.
                Arguments.of("UPDATE t SET a = 1$x$; COMMIT; UPDATE t SET b = $x$", POSTGRESQL),
                // H2 reads $$ as a string only where a token starts, never inside an identifier.
                Arguments.of("UPDATE t SET a$$ = 1; COMMIT; UPDATE t SET b$$ = 2", H2),
                // ANSI_QUOTES makes " quote an identifier, in which a backslash escapes nothing.
                Arguments.of("UPDATE t SET a = \"x\\\"; COMMIT; UPDATE t SET b = \"", MARIADB),
                // A MariaDB comment for an older version runs.
                Arguments.of("UPDATE t SET a = 1 /*!50000 ; COMMIT; */ UPDATE t SET b = 2", MARIADB));
    }

    @ParameterizedTest
    @MethodSource("textsThatOneReaderSplitsAroundACommit")
    void readersThatDisagreeAreAllConsulted(String sql, Family family) {
        assertThat(endsBeforeLast(sql, family)).as(sql).isTrue();
    }

    @Test
    void aMariaDbCommentForANewerVersionIsSkippedAsTheServerSkipsIt() {
        String text = "UPDATE t SET a = 1 /*!999999 ; COMMIT; */ UPDATE t SET b = 2";
        assertThat(TransactionBoundary.of(text, MARIADB, 101119).endsBeforeLast())
                .isFalse();
        assertThat(TransactionBoundary.of(text, MARIADB, 0).endsBeforeLast()).isTrue();
    }

    @Test
    void aBatchEndsMidwayWhenAnyButItsLastTextEnds() {
        assertThat(TransactionBoundary.ofBatch(List.of("UPDATE t SET a = 1", "COMMIT", "UPDATE t SET a = 2"), H2, 0)
                        .endsBeforeLast())
                .isTrue();
        Effect endsLast = TransactionBoundary.ofBatch(List.of("UPDATE t SET a = 1", "COMMIT"), H2, 0);
        assertThat(endsLast.endsBeforeLast()).isFalse();
        assertThat(endsLast.last()).isEqualTo(TransactionBoundary.COMMIT);
    }

    private static boolean endsBeforeLast(String sql, Family family) {
        return of(sql, family).endsBeforeLast();
    }

    private static Effect of(String sql, Family family) {
        return TransactionBoundary.of(sql, family, 0);
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
        for (Family family : List.of(POSTGRESQL, MARIADB, H2)) {
            assertThat(of(sql, family).readsOnly())
                    .as("%s read as %s", sql, family)
                    .isEqualTo(readsOnly);
        }
        assertThat(Effect.OPAQUE_CALL.readsOnly()).isFalse();
    }
}
