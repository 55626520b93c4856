package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The local deadline is what invariant 6 rests on: past it every lock of the session counts as
 * lost. It must never lie later than etcd's own expiry, so it runs from the send time of a
 * confirmed keep-alive, less a margin, and nothing moves it back out once the session expired.
 */
class SessionLeaseTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final long sent = System.nanoTime();

    @Test
    void theDeadlineIsTheSendTimePlusTheTtlLessATenth() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);

        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 27 * SECOND);
    }

    @Test
    void theMarginIsATenthOfTheTtlButAtLeastAHundredMilliseconds() {
        assertThat(SessionLease.safetyMargin(30 * SECOND)).isEqualTo(3 * SECOND);
        assertThat(SessionLease.safetyMargin(SECOND)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(SessionLease.safetyMargin(SECOND / 2)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aShorterTtlGrantedByEtcdBoundsTheDeadline() {
        SessionLease session = new SessionLease(1, 30, 10, this.sent);

        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 9 * SECOND);
    }

    @Test
    void aConfirmedKeepAliveExtendsTheDeadlineFromItsSendTime() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);

        session.confirmed(this.sent + 10 * SECOND, 30);

        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 37 * SECOND);
        assertThat(session.confirmedSince(this.sent + 9 * SECOND)).isTrue();
        assertThat(session.confirmedSince(this.sent + 10 * SECOND)).isFalse();
    }

    @Test
    void aLateAnswerToAnOlderKeepAliveNeverMovesTheDeadlineBack() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);
        session.confirmed(this.sent + 10 * SECOND, 30);

        session.confirmed(this.sent + 5 * SECOND, 30);

        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 37 * SECOND);
        assertThat(session.confirmedSince(this.sent + 9 * SECOND)).isTrue();
    }

    @Test
    void theTtlEtcdReportsLeftLimitsTheExtension() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);

        session.confirmed(this.sent + 20 * SECOND, 10);

        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 30 * SECOND);
    }

    @Test
    void noKeepAliveRevivesAnExpiredSession() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);

        assertThat(session.expire()).isTrue();
        assertThat(session.expire()).isFalse();
        session.confirmed(this.sent + 10 * SECOND, 30);

        assertThat(session.isExpired()).isTrue();
        assertThat(session.validUntilNanos()).isEqualTo(this.sent + 27 * SECOND);
    }

    @Test
    void aSessionPastItsDeadlineIsExpired() {
        SessionLease session = new SessionLease(1, 1, 1, System.nanoTime() - 2 * SECOND);

        assertThat(session.isExpired()).isTrue();
        assertThat(session.validFor()).isNegative();
    }

    @Test
    void aFreshSessionIsValidForItsTtlLessTheMargin() {
        SessionLease session = new SessionLease(1, 30, 30, this.sent);

        // Bracketed by clock readings around the call: exact on any machine, however slow.
        long before = System.nanoTime();
        Duration validFor = session.validFor();
        long after = System.nanoTime();
        assertThat(session.isExpired()).isFalse();
        assertThat(validFor)
                .isBetween(
                        Duration.ofNanos(this.sent + 27 * SECOND - after),
                        Duration.ofNanos(this.sent + 27 * SECOND - before));
    }

    @Test
    void keepAlivesGoOutThreeTimesPerTtl() {
        assertThat(new SessionLease(1, 30, 30, this.sent).keepAlivePeriodNanos())
                .isEqualTo(10 * SECOND);
    }
}
