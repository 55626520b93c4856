package dev.fencelock.etcd;

import static dev.fencelock.etcd.SyntheticKeyValues.kv;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.spi.LockKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A waiter's re-check reads what is left ahead of its key and may be answered after the waiter put
 * again (it lost its right to the key it found). That answer is about the old key: it must not grant
 * the waiter, whose new key is unknown yet or newer, and may have other keys ahead of it.
 */
class QueueReadsTest {

    private final RecordingWaiter waiter = new RecordingWaiter(10);

    @Test
    void anAnswerWithNothingAheadGrantsTheKeyItWasReadFor() {
        QueueReads.decide(this.waiter, LockKind.EXCLUSIVE, List.of(), this.waiter.session(), 10);

        assertThat(this.waiter.grants).isEqualTo(1);
    }

    @Test
    void anAnswerForAKeyTheWaiterNoLongerHasDoesNotGrant() {
        this.waiter.revision = 0; // putting again: its new key is not known yet
        QueueReads.decide(this.waiter, LockKind.EXCLUSIVE, List.of(), this.waiter.session(), 10);
        this.waiter.revision = 14; // put again: a key created between 10 and 14 may be ahead of it
        QueueReads.decide(this.waiter, LockKind.EXCLUSIVE, List.of(kv("older", 8, 8)), this.waiter.session(), 10);

        assertThat(this.waiter.grants).isZero();
        assertThat(this.waiter.staleGrants).isZero();
    }
}
