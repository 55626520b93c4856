package dev.fencelock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfKeysTest {

    @Test
    void ranksAreDrawnInProportionToTheirProbability() {
        ZipfKeys zipf = new ZipfKeys(100_000, 0.99);
        SplittableRandom random = new SplittableRandom(16);
        int draws = 1_000_000;
        int[] counts = new int[3];
        long tail = 0;
        for (int i = 0; i < draws; i++) {
            int rank = zipf.next(random);
            assertThat(rank).isBetween(0, 99_999);
            if (rank < 3) {
                counts[rank]++;
            } else if (rank >= 50_000) {
                tail++;
            }
        }
        for (int rank = 0; rank < 3; rank++) {
            assertThat(counts[rank] / (double) draws).isCloseTo(zipf.probability(rank), within(0.002));
        }
        // Rank 0 is about twice as likely as rank 1 (exponent close to 1), and the long tail still gets drawn.
        assertThat(zipf.probability(0) / zipf.probability(1)).isCloseTo(Math.pow(2, 0.99), within(1e-9));
        assertThat(tail).isPositive();
    }
}
