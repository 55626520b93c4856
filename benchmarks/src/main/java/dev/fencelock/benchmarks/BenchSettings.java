package dev.fencelock.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Sizes of every scenario. The full run is the design brief's workload; quick mode
 * ({@code -Dbench.quick=true}) runs each case for about a second so CI can prove the module still
 * works, not how fast it is.
 *
 * @param quick whether this is the quick (CI) mode
 * @param resources scenario 1: lockable resources
 * @param rates scenario 1: acquisitions (and releases) per second, one run each; the first is the
 *     design brief's
 * @param held scenario 1: locks held at steady state; each lock is held {@code held / rate} seconds
 * @param window scenario 1: measurement window after the ramp-up
 * @param heapLocks locks held for the heap-per-lock measurement
 * @param concurrencies scenarios 2 and 6: closed-loop concurrencies
 * @param contenders scenario 3: contenders on the hot key
 * @param zipfThreads scenario 7: closed-loop concurrencies
 * @param zipfResources scenario 7: resources the keys are drawn from
 * @param zipfExponent scenario 7: exponent of the Zipf distribution of keys
 * @param warmup scenarios 2, 3, 6 and 7: unmeasured time before each case
 * @param caseTime scenarios 2, 3, 6 and 7: measured time of each case
 * @param rounds scenarios 2, 3, 6 and 7: rounds per case, the systems' order reversed every other round
 * @param failoverBefore scenario 4: load before the leader is killed
 * @param failoverAfter scenario 4: load after acquisitions succeed again
 * @param compactEvery scenario 5: time from the end of one compaction to the start of the next
 * @param out directory for results.md and the chart
 */
public record BenchSettings(
        boolean quick,
        int resources,
        List<Integer> rates,
        int held,
        Duration window,
        int heapLocks,
        List<Integer> concurrencies,
        List<Integer> contenders,
        List<Integer> zipfThreads,
        int zipfResources,
        double zipfExponent,
        Duration warmup,
        Duration caseTime,
        int rounds,
        Duration failoverBefore,
        Duration failoverAfter,
        Duration compactEvery,
        Path out) {

    /**
     * Reads {@code bench.quick}, {@code bench.out}, and the optional lists {@code bench.rates}
     * (scenario 1), {@code bench.concurrencies} (scenarios 2 and 6), {@code bench.contenders}
     * (scenario 3) and {@code bench.zipfThreads} (scenario 7), e.g. {@code -Dbench.contenders=64}
     * to run one case again.
     */
    public static BenchSettings fromSystemProperties() {
        boolean quick = Boolean.getBoolean("bench.quick");
        Path out = Path.of(System.getProperty("bench.out", "target/benchmarks"));
        BenchSettings settings = quick ? quick(out) : full(out);
        return new BenchSettings(
                settings.quick(),
                settings.resources(),
                listProperty("bench.rates", settings.rates()),
                settings.held(),
                settings.window(),
                settings.heapLocks(),
                listProperty("bench.concurrencies", settings.concurrencies()),
                listProperty("bench.contenders", settings.contenders()),
                listProperty("bench.zipfThreads", settings.zipfThreads()),
                settings.zipfResources(),
                settings.zipfExponent(),
                settings.warmup(),
                settings.caseTime(),
                settings.rounds(),
                settings.failoverBefore(),
                settings.failoverAfter(),
                settings.compactEvery(),
                settings.out());
    }

    private static List<Integer> listProperty(String name, List<Integer> defaults) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            return defaults;
        }
        return java.util.Arrays.stream(value.split(","))
                .map(String::trim)
                .map(Integer::valueOf)
                .toList();
    }

    public static BenchSettings full(Path out) {
        return new BenchSettings(
                false,
                100_000,
                List.of(2_000, 1_000, 500),
                20_000,
                Duration.ofSeconds(30),
                20_000,
                List.of(1, 16, 64),
                List.of(16, 64),
                List.of(16, 64),
                100_000,
                0.99,
                Duration.ofSeconds(2),
                Duration.ofSeconds(4),
                3,
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                out);
    }

    public static BenchSettings quick(Path out) {
        return new BenchSettings(
                true,
                10_000,
                List.of(200),
                400,
                Duration.ofSeconds(3),
                2_000,
                List.of(1, 16, 64),
                List.of(16, 64),
                List.of(16, 64),
                100_000,
                0.99,
                Duration.ofMillis(300),
                Duration.ofSeconds(1),
                1,
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                out);
    }

    /**
     * The settings for running every system unmeasured before the first case: one round of
     * twice the usual warm-up, nothing before it.
     */
    public BenchSettings forWarmUp() {
        return new BenchSettings(
                this.quick,
                this.resources,
                this.rates,
                this.held,
                this.window,
                this.heapLocks,
                this.concurrencies,
                this.contenders,
                this.zipfThreads,
                this.zipfResources,
                this.zipfExponent,
                Duration.ZERO,
                this.warmup.multipliedBy(2),
                1,
                this.failoverBefore,
                this.failoverAfter,
                this.compactEvery,
                this.out);
    }

    /** The same sizes with other concurrencies of scenarios 2 and 6 and contenders of scenario 3. */
    public BenchSettings withCases(List<Integer> concurrencies, List<Integer> contenders) {
        return new BenchSettings(
                this.quick,
                this.resources,
                this.rates,
                this.held,
                this.window,
                this.heapLocks,
                concurrencies,
                contenders,
                this.zipfThreads,
                this.zipfResources,
                this.zipfExponent,
                this.warmup,
                this.caseTime,
                this.rounds,
                this.failoverBefore,
                this.failoverAfter,
                this.compactEvery,
                this.out);
    }

    /** How long each lock is held in scenario 1 at {@code rate}, so that {@link #held} are held (Little's law). */
    public Duration hold(int rate) {
        return Duration.ofMillis(1000L * this.held / rate);
    }
}
