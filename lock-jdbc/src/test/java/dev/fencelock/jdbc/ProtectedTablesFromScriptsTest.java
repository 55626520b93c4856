package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.jdbc.ProtectedTablesTest.ProtectedStock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A second application with no FenceLock at all — here the databases' own command-line clients, as a
 * script or an operator would run them — cannot write a protected table, unless its session sets the
 * documented bypass on purpose.
 */
class ProtectedTablesFromScriptsTest {

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void aScriptWritesAProtectedTableOnlyWithTheBypass(TestDatabase database) throws Exception {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            String update = "UPDATE " + stock.fixture.stockTable + " SET qty = 7 WHERE sku = 'apple'";

            Result refused = client(database, update);
            assertThat(refused.exitCode()).as(refused.output()).isNotZero();
            assertThat(refused.output()).contains("carries no fence");
            assertThat(stock.fixture.qty("apple")).isEqualTo(100L);

            String bypass = (database == TestDatabase.POSTGRESQL)
                    ? "SET fencelock.bypass = 'on'; "
                    : "SET @fencelock_bypass = 'on'; ";
            Result bypassed = client(database, bypass + update);
            assertThat(bypassed.exitCode()).as(bypassed.output()).isZero();
            assertThat(stock.fixture.qty("apple")).isEqualTo(7L);
        }
    }

    private record Result(int exitCode, String output) {}

    /** Runs {@code sql} with psql or mariadb against the test database, as user fencelock over TCP. */
    private static Result client(TestDatabase database, String sql) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (database == TestDatabase.POSTGRESQL) {
            command.addAll(List.of(
                    "psql",
                    "-X",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-h",
                    "127.0.0.1",
                    "-U",
                    "fencelock",
                    "-d",
                    "fencelock",
                    "-c",
                    sql));
            builder.environment().put("PGPASSWORD", "fencelock");
        } else {
            command.addAll(List.of(
                    "mariadb",
                    "--protocol=tcp",
                    "-h",
                    "127.0.0.1",
                    "-u",
                    "fencelock",
                    "-pfencelock",
                    "fencelock",
                    "-e",
                    sql));
        }
        Process process = builder.start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError(command.get(0) + " did not finish within 60 s");
            }
            return new Result(
                    process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
        }
    }
}
