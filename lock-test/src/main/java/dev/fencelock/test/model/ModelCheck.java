package dev.fencelock.test.model;

import static org.quicktheories.QuickTheory.qt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.quicktheories.api.AsString;
import org.quicktheories.core.Reporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a {@link LockSystem} against the {@link LockModel} with scripts QuickTheories generates
 * and shrinks, then shrinks the smallest failing script further ({@link ScriptShrinker}) and
 * fails with it printed one command per line.
 *
 * <p>System properties scale a run: {@code fencelock.model.examples} (scripts per system),
 * {@code fencelock.model.steps} (longest script), {@code fencelock.model.seconds} (stop
 * generating after this long), {@code fencelock.model.seed} (replay a run),
 * {@code fencelock.model.shrinks} (QuickTheories' shrink cycles).
 */
public final class ModelCheck {

    private static final Logger logger = LoggerFactory.getLogger(ModelCheck.class);

    /**
     * How large a check is.
     *
     * @param keepGoing whether to record a failure and search on with the next seed, until the
     *     examples or the time are used up (a long run), instead of stopping at the first
     * @param shrinkRuns how many runs {@link ScriptShrinker} may spend on one failure
     */
    public record Settings(
            int examples,
            int maxSteps,
            Duration budget,
            long seed,
            int shrinkCycles,
            boolean keepGoing,
            int shrinkRuns) {

        /** The given size, unless system properties ask for another. */
        public static Settings of(int examples, int maxSteps, Duration budget) {
            return new Settings(
                    Integer.getInteger("fencelock.model.examples", examples),
                    Integer.getInteger("fencelock.model.steps", maxSteps),
                    Duration.ofSeconds(Long.getLong("fencelock.model.seconds", budget.toSeconds())),
                    Long.getLong("fencelock.model.seed", System.nanoTime()),
                    Integer.getInteger("fencelock.model.shrinks", 40),
                    Boolean.getBoolean("fencelock.model.keepGoing"),
                    Integer.getInteger("fencelock.model.shrinkRuns", 200));
        }
    }

    private ModelCheck() {}

    /**
     * Runs the check; returns its figures, or fails with the minimal script of each failure
     * found. Runs that QuickTheories and {@link ScriptShrinker} make while shrinking are not
     * counted in the figures.
     */
    public static RunStats check(LockSystem system, Settings settings) {
        RunStats stats = new RunStats();
        RunStats shrinking = new RunStats();
        List<ScriptFailure> failures = new ArrayList<>();
        long deadline = System.nanoTime() + settings.budget().toNanos();
        long seed = settings.seed();
        while (true) {
            FirstFailure failure = new FirstFailure();
            int examplesLeft = settings.examples() - stats.scripts();
            long millisLeft = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (examplesLeft <= 0 || millisLeft <= 0) {
                break;
            }
            qt().withFixedSeed(seed)
                    .withExamples(examplesLeft)
                    .withTestingTime(millisLeft, TimeUnit.MILLISECONDS)
                    .withShrinkCycles(settings.shrinkCycles())
                    .withReporter(failure)
                    .forAll(new StepGenerator(system.members()).scripts(settings.maxSteps()))
                    .checkAssert(script -> {
                        // Once a script failed, QuickTheories' further runs are shrinking it.
                        try {
                            ModelRun.run(system, script, failure.failing ? shrinking : stats);
                        } catch (RuntimeException | AssertionError broken) {
                            failure.failing = true;
                            throw broken;
                        }
                        if (!failure.failing && stats.scripts() % 100 == 0) {
                            logger.info("Model check on {}, so far: {}", system.describe(), stats);
                        }
                    });
            if (failure.script == null || failure.cause == null) {
                break;
            }
            ScriptFailure found = minimal(system, settings, failure, shrinking);
            failures.add(found);
            logger.error(
                    "Model check on {}: failure {} found: {}", system.describe(), failures.size(), found.getMessage());
            if (!settings.keepGoing()) {
                break;
            }
            seed++;
        }
        logger.info(
                "Model check on {} (seed {}): {}; {} failures",
                system.describe(),
                settings.seed(),
                stats,
                failures.size());
        if (!failures.isEmpty()) {
            ScriptFailure first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
        return stats;
    }

    private static ScriptFailure minimal(LockSystem system, Settings settings, FirstFailure found, RunStats shrinking) {
        ScriptShrinker shrinker = new ScriptShrinker(
                script -> {
                    try {
                        ModelRun.run(system, script, shrinking);
                        return null;
                    } catch (RuntimeException | AssertionError failure) {
                        return failure;
                    }
                },
                settings.shrinkRuns(),
                Duration.ofMinutes(15));
        ScriptShrinker.Shrunk shrunk = shrinker.shrink(found.script, found.cause);
        // Printed as performed: a release by a client with nothing on the step's resource names the one it released.
        List<String> performed = (shrunk.failure() instanceof ModelRun.ModelViolation violation)
                ? violation.performed()
                : shrunk.script().stream().map(Step::toString).toList();
        String nl = System.lineSeparator();
        StringBuilder script = new StringBuilder();
        performed.forEach(line -> script.append("  ").append(line).append(nl));
        ScriptFailure error = new ScriptFailure(
                shrunk.script(),
                "The lock broke the model on " + system.describe() + "." + nl
                        + "Minimal script (" + shrunk.script().size() + " steps, shrunk from " + found.script.size()
                        + " by QuickTheories and " + shrunk.runs() + " more runs; found with seed " + found.seed
                        + " after " + found.examples + " scripts; replay with -Dfencelock.model.seed=" + found.seed
                        + "):" + nl + script + "What went wrong:" + nl
                        + shrunk.failure().getMessage());
        error.addSuppressed(shrunk.failure());
        return error;
    }

    /** A check that failed, with the minimal script that makes it fail. */
    static final class ScriptFailure extends AssertionError {

        private static final long serialVersionUID = 1L;

        private final transient List<Step> script;

        ScriptFailure(List<Step> script, String message) {
            super(message);
            this.script = script;
        }

        List<Step> script() {
            return this.script;
        }
    }

    /**
     * Keeps QuickTheories' smallest failing script instead of throwing it as text. (QuickTheories
     * 0.26 spells its method {@code falisification}.)
     */
    private static final class FirstFailure implements Reporter {

        @Nullable
        List<Step> script;

        @Nullable
        Throwable cause;

        /** Set when a script failed: QuickTheories shrinks it from then on. */
        boolean failing;

        long seed;

        int examples;

        @Override
        @SuppressWarnings("unchecked")
        public void falisification(
                long seed,
                int count,
                Object smallest,
                Throwable cause,
                List<Object> examples,
                AsString<Object> toString) {
            this.script = (List<Step>) smallest;
            this.cause = cause;
            this.seed = seed;
            this.examples = count;
        }

        @Override
        public void falisification(
                long seed, int count, Object smallest, List<Object> examples, AsString<Object> toString) {
            falisification(
                    seed, count, smallest, new AssertionError("the property returned false"), examples, toString);
        }

        @Override
        public void valuesExhausted(int completedExamples) {}
    }
}
