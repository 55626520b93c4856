package dev.fencelock.test.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Removes steps from a failing script while it still fails, halving the size of the cut from half
 * the script down to single steps (delta debugging). QuickTheories shrinks a list only by its
 * length and each element's draws, so a harmless step in the middle would stay in the script it
 * reports; this pass takes it out, until no single step can go. Bounded in runs and in time:
 * every run against etcd costs seconds.
 */
final class ScriptShrinker {

    private final Function<List<Step>, @Nullable Throwable> failureOf;

    private final int maxRuns;

    private final long deadlineNanos;

    private int runs;

    /**
     * @param failureOf runs a script, returning how it failed, or {@code null} if it passed
     */
    ScriptShrinker(Function<List<Step>, @Nullable Throwable> failureOf, int maxRuns, Duration budget) {
        this.failureOf = failureOf;
        this.maxRuns = maxRuns;
        this.deadlineNanos = System.nanoTime() + budget.toNanos();
    }

    /** A script failing as {@code failure} did, shrunk; and how the shrunk one failed. */
    record Shrunk(List<Step> script, Throwable failure, int runs) {}

    Shrunk shrink(List<Step> failing, Throwable failure) {
        List<Step> current = failing;
        Throwable currentFailure = failure;
        int cut = Math.max(1, current.size() / 2);
        while (withinBudget()) {
            boolean removedAny = false;
            int start = 0;
            while (start < current.size() && current.size() > 1 && withinBudget()) {
                List<Step> candidate = new ArrayList<>(current.subList(0, start));
                candidate.addAll(current.subList(Math.min(current.size(), start + cut), current.size()));
                Throwable candidateFailure = candidate.isEmpty() ? null : run(candidate);
                if (candidateFailure != null) {
                    current = candidate;
                    currentFailure = candidateFailure;
                    removedAny = true;
                } else {
                    start += cut;
                }
            }
            if (cut == 1 && !removedAny) {
                break; // no single step can go: minimal
            }
            cut = Math.max(1, cut / 2);
        }
        return new Shrunk(List.copyOf(current), currentFailure, this.runs);
    }

    private @Nullable Throwable run(List<Step> candidate) {
        this.runs++;
        return this.failureOf.apply(candidate);
    }

    private boolean withinBudget() {
        return this.runs < this.maxRuns && System.nanoTime() - this.deadlineNanos < 0;
    }
}
