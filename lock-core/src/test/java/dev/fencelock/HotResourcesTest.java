package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HotResourcesTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private final HotResources hot = new HotResources(3, Duration.ofMinutes(1), this.clock::get);

    @Test
    void theResourcesWaitedForMostRankFirstAndOnlySizeOfThemAreShown() {
        for (int i = 0; i < 10; i++) {
            this.hot.record(name("cold-" + i), MS, 1, false);
        }
        this.hot.record(name("warm"), 50 * MS, 2, false);
        this.hot.record(name("hot"), 200 * MS, 3, true);
        this.hot.record(name("hot"), 300 * MS, 4, false);

        List<HotResource> ranking = this.hot.ranking(resource -> 0);

        assertThat(ranking).extracting(HotResource::resource).hasSize(3).startsWith("hot", "warm");
        assertThat(ranking.get(2).resource()).startsWith("cold-");
        HotResource first = ranking.get(0);
        assertThat(first.rank()).isEqualTo(1);
        assertThat(first.waitSeconds()).isCloseTo(0.5, within(1e-9));
        assertThat(first.errorSeconds()).isZero();
        assertThat(first.peakWaiting()).isEqualTo(4);
        assertThat(first.acquisitions()).isEqualTo(2.0);
        assertThat(first.busy()).isEqualTo(1.0);
    }

    /**
     * 100,000 resources acquired once each, uncontended, and one resource waited for every hundredth
     * time: the sketch keeps its counters bounded and never loses the hot one, whose figure is a
     * lower bound that misses the truth by no more than its error.
     */
    @Test
    void memoryStaysBoundedAndAHeavyHitterIsKeptWithItsWaitBounded() {
        long hotTotal = 0;
        for (int i = 0; i < 100_000; i++) {
            this.hot.record(name("resource-" + i), 2 * MS, 1, false);
            if (i % 100 == 0) {
                this.hot.record(name("hot"), 40 * MS, 5, false);
                hotTotal += 40 * MS;
            }
        }

        assertThat(this.hot.tracked()).isLessThanOrEqualTo(this.hot.capacity()).isEqualTo(64);
        HotResource first = this.hot.ranking(resource -> 0).get(0);
        assertThat(first.resource()).isEqualTo("hot");
        assertThat(first.waitSeconds()).isLessThanOrEqualTo(hotTotal / 1e9);
        assertThat(first.waitSeconds() + first.errorSeconds()).isGreaterThanOrEqualTo(hotTotal / 1e9);
        // Space-saving: every error is at most the total weight over the number of counters.
        double totalSeconds = (100_000 * 2 * MS + hotTotal) / 1e9;
        assertThat(first.errorSeconds()).isLessThanOrEqualTo(totalSeconds / this.hot.capacity());
    }

    @Test
    void waitsCountHalfAfterTheHalfLifeAndAverageWaitingFollowsLittlesLaw() {
        this.hot.record(name("hot"), TimeUnit.SECONDS.toNanos(10), 1, false);

        this.clock.addAndGet(TimeUnit.MINUTES.toNanos(1));
        HotResource decayed = this.hot.ranking(resource -> 2).get(0);

        assertThat(decayed.waitSeconds()).isCloseTo(5.0, within(1e-6));
        // A weight W under decay rate λ = ln 2 / half-life is what W·λ waiters per second add up to.
        assertThat(decayed.averageWaiting()).isCloseTo(5.0 * Math.log(2) / 60, within(1e-9));
        assertThat(decayed.waitingNow()).isEqualTo(2);
    }

    @Test
    void aResourceThatTookAnEvictedCounterDoesNotOutrankOneMeasuredLonger() {
        HotResources small = new HotResources(1, Duration.ofMinutes(1), this.clock::get);
        for (int i = 0; i < 63; i++) {
            small.record(name("filler-" + i), 10 * MS, 1, false);
        }
        small.record(name("steady"), 15 * MS, 1, false);
        // The 65th resource takes the smallest counter (10 ms) as its error: its certain wait is 6 ms.
        small.record(name("newcomer"), 6 * MS, 1, false);

        HotResource first = small.ranking(resource -> 0).get(0);
        assertThat(first.resource()).isEqualTo("steady");
    }

    @Test
    void sizeZeroKeepsNothing() {
        HotResources none = new HotResources(0, Duration.ofMinutes(1), this.clock::get);
        none.record(name("any"), 100 * MS, 1, true);

        assertThat(none.ranking(resource -> 0)).isEmpty();
        assertThat(none.tracked()).isZero();
    }

    private static ResourceName name(String resource) {
        return ResourceName.of(resource, 255);
    }
}
