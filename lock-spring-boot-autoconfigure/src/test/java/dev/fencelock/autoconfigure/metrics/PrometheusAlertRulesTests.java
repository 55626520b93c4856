package dev.fencelock.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.metrics.BackendMetrics;
import dev.fencelock.spi.StoreCapacity;
import dev.fencelock.spi.WriteOperation;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * docs/prometheus-alerts.yml is what operators load into Prometheus: Prometheus's own {@code promtool}
 * checks it and runs its unit tests (docs/prometheus-alerts-test.yml, a firing and a quiet case per
 * rule), and every series it queries is one the application's scrape shows under that exact name.
 */
class PrometheusAlertRulesTests {

    private static final Path DOCS = Path.of("..", "docs");

    /** promtool evaluates a few hundred samples per test; far below this even on a busy 2-core machine. */
    private static final Duration PROMTOOL_TIMEOUT = Duration.ofMinutes(2);

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        assertThat(promtool("check", "rules", "prometheus-alerts.yml")).contains("SUCCESS");
    }

    @Test
    void everyRuleFiresAndStaysQuietAsItsUnitTestsSay() throws Exception {
        assertThat(promtool("test", "rules", "prometheus-alerts-test.yml")).contains("SUCCESS");
    }

    @Test
    void everyRuleHasUnitTestsAndARunbookEntry() throws IOException {
        String rules = Files.readString(DOCS.resolve("prometheus-alerts.yml"));
        String tests = Files.readString(DOCS.resolve("prometheus-alerts-test.yml"));
        String operations = Files.readString(DOCS.resolve("operations.md"));
        Set<String> alerts = matches(Pattern.compile("(?m)^\\s+- alert: (\\w+)$"), rules);
        assertThat(alerts).hasSizeGreaterThanOrEqualTo(10);
        assertThat(alerts).allSatisfy(alert -> {
            assertThat(tests).as("tests of " + alert).contains("alertname: " + alert);
            assertThat(operations).as("runbook entry of " + alert).contains("#### " + alert + "\n");
            assertThat(rules).as("runbook link of " + alert).contains("docs/operations.md#" + alert.toLowerCase());
        });
    }

    @Test
    void rulesQueryOnlySeriesThatTheScrapeShows() throws IOException {
        Set<String> queried = matches(
                Pattern.compile("(fencelock_[a-z_]+)"), Files.readString(DOCS.resolve("prometheus-alerts.yml")));
        assertThat(queried).contains("fencelock_store_size_bytes", "fencelock_lost_total");
        String scrape = scrape();
        assertThat(queried)
                .allSatisfy(name -> assertThat(scrape)
                        .as("the scrape's series named " + name)
                        .containsPattern("(?m)^" + name + "[{ ]"));
    }

    /**
     * What a Prometheus scrape of an application shows once it took and released a lock, and its
     * backend reported a commit and its store's capacity (as the etcd backend does with its checks).
     */
    static String scrape() {
        String[] scrape = new String[1];
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "management.metrics.distribution.percentiles-histogram.fencelock.acquire=true",
                        "management.metrics.distribution.percentiles-histogram.fencelock.commit=true")
                .run((context) -> {
                    LockClient client = context.getBean(LockClient.class);
                    try (LockLease lease = client.acquire(
                            LockRequest.builder("order:1").lockName("orders").build())) {
                        lease.renew();
                    }
                    BackendMetrics backend = context.getBean(BackendMetrics.class);
                    backend.committed(WriteOperation.ACQUIRE, Duration.ofMillis(3));
                    backend.capacityChecked(new StoreCapacity(
                            1 << 20, 1 << 19, 2L << 30, 1200, 1000, Duration.ofMinutes(5), true, List.of()));
                    scrape[0] = context.getBean(PrometheusMeterRegistry.class).scrape();
                });
        return scrape[0];
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }

    /** Runs promtool in docs/ and returns its output; fails on a non-zero exit, or when it is not installed. */
    private static String promtool(String... arguments) throws IOException, InterruptedException {
        Path binary = onPath("promtool");
        if (binary == null) {
            fail("promtool is not installed (it checks docs/prometheus-alerts.yml): run scripts/install-deps.sh"
                    + " as root, which installs Debian's prometheus package");
        }
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(List.of(arguments));
        // To a file, not a pipe: a process whose pipe nobody reads yet can block before it exits.
        Path output = Files.createTempFile("promtool", ".out");
        Process process = new ProcessBuilder(command)
                .directory(DOCS.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            if (!process.waitFor(PROMTOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                fail("promtool " + String.join(" ", arguments) + " did not finish within " + PROMTOOL_TIMEOUT);
            }
            String text = Files.readString(output);
            System.out.printf("$ promtool %s%n%s", String.join(" ", arguments), text);
            assertThat(process.exitValue())
                    .as("exit code of promtool %s; its output:%n%s", String.join(" ", arguments), text)
                    .isZero();
            return text;
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(output);
        }
    }

    private static @Nullable Path onPath(String name) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
