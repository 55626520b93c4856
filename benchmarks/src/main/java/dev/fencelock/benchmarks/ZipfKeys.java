package dev.fencelock.benchmarks;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Draws resource ranks {@code 0 .. n-1} with probability proportional to {@code 1 / (rank + 1)^s}:
 * a few resources are locked often (contention, reuse), most rarely, as keys of real workloads
 * are (hot accounts, popular products).
 */
final class ZipfKeys {

    /** Cumulative probability of ranks {@code 0 .. i}. */
    private final double[] cumulative;

    ZipfKeys(int resources, double exponent) {
        if (resources < 1) {
            throw new IllegalArgumentException("resources must be at least 1, got " + resources);
        }
        this.cumulative = new double[resources];
        double sum = 0;
        for (int rank = 0; rank < resources; rank++) {
            sum += 1 / Math.pow(rank + 1, exponent);
            this.cumulative[rank] = sum;
        }
        for (int rank = 0; rank < resources; rank++) {
            this.cumulative[rank] /= sum;
        }
    }

    /** The next rank, drawn with {@code random}. */
    int next(RandomGenerator random) {
        int found = Arrays.binarySearch(this.cumulative, random.nextDouble());
        int rank = (found >= 0) ? found : -found - 1;
        return Math.min(rank, this.cumulative.length - 1);
    }

    /** Probability of {@code rank}. */
    double probability(int rank) {
        return this.cumulative[rank] - (rank == 0 ? 0 : this.cumulative[rank - 1]);
    }

    int resources() {
        return this.cumulative.length;
    }
}
