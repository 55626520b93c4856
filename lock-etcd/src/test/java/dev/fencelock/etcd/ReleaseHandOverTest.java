package dev.fencelock.etcd;

import static dev.fencelock.etcd.SyntheticKeyValues.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A release hands the lock to the local waiter behind it from the release Txn's own read of that
 * waiter's key. Keys older than it can only disappear, so the key found with its create revision
 * at the release's revision means it owns the lock; anything else must not grant.
 */
class ReleaseHandOverTest {

    private final RecordingWaiter next = new RecordingWaiter(10);

    private final Successor successor = new Successor(SyntheticKeyValues.PREFIX + "next", 10, this.next);

    @Test
    void theSuccessorIsGrantedWhenItsKeyIsStillThere() {
        this.successor.handOverIf(read("next", 10));

        assertThat(this.next.grants).isEqualTo(1);
    }

    @Test
    void theSuccessorIsNotGrantedWhenItsKeyIsGone() {
        this.successor.handOverIf(read("next", 0));

        assertThat(this.next.grants).isZero();
    }

    @Test
    void theSuccessorIsNotGrantedForAKeyOfTheSameNameCreatedLater() {
        this.successor.handOverIf(read("next", 15));

        assertThat(this.next.grants).isZero();
    }

    @Test
    void theSuccessorIsNotGrantedOnceItPutsAgainWhileTheReleaseRuns() {
        // The waiter lost its right to the key the release read (a removal of it was registered)
        // and puts again: the hand-over of the old key must not grant it, unknown or new key alike.
        this.next.revision = 0;
        this.successor.handOverIf(read("next", 10));
        this.next.revision = 14;
        this.successor.handOverIf(read("next", 10));

        assertThat(this.next.grants).isZero();
        assertThat(this.next.staleGrants).isZero();
    }

    @Test
    void aWaiterWithoutASessionIsNotGranted() {
        RecordingWaiter withoutSession = new RecordingWaiter(10, null);

        new Successor(SyntheticKeyValues.PREFIX + "next", 10, withoutSession).handOverIf(read("next", 10));

        assertThat(withoutSession.grants).isZero();
    }

    @Test
    void aDeleteWithASuccessorAddsItsReadAndTakesExactlyThatRead() {
        DeleteRequest release = new DeleteRequest(SyntheticKeyValues.PREFIX + "holder", 8, this.successor);
        DeleteRequest plain = new DeleteRequest(SyntheticKeyValues.PREFIX + "other", 9, null);
        List<Cmp> conditions = new ArrayList<>();
        List<Op> operations = new ArrayList<>();
        plain.addTo(conditions, operations);
        release.addTo(conditions, operations);
        assertThat(conditions).hasSize(2);
        assertThat(operations).hasSize(3);

        // In op order the Txn answers with one range response: the successor's read.
        Iterator<GetResponse> reads = List.of(read("next", 10)).iterator();
        Runnable plainHandOver = plain.handOver(reads);
        Runnable releaseHandOver = release.handOver(reads);
        assertThat(reads).isExhausted();

        plainHandOver.run();
        assertThat(this.next.grants).isZero();
        releaseHandOver.run();
        assertThat(this.next.grants).isEqualTo(1);
    }
}
