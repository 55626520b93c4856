package dev.fencelock.etcd;

import static dev.fencelock.etcd.SyntheticKeyValues.delete;
import static dev.fencelock.etcd.SyntheticKeyValues.kv;
import static dev.fencelock.etcd.SyntheticKeyValues.put;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The queue mirror decides who owns a lock from watch events alone, so its decisions are checked
 * here against synthetic events: a waiter is granted only once the mirror has seen its key and no
 * older key is left, events the seeding read already contains are not applied twice, and nothing
 * is decided before the seeding read.
 */
class QueueMirrorTest {

    private final List<Runnable> decisions = new ArrayList<>();

    @Test
    void aWaiterWhoseKeyIsOldestAfterTheSeedingReadIsGranted() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);

        confirm(mirror);
        mirror.seed(12, List.of(kv("mine", 10, 10)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aWaiterBehindAnOlderKeyIsGrantedWhenThatKeyIsDeleted() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        mirror.seed(12, List.of(kv("holder", 8, 8), kv("mine", 10, 10)), this.decisions);
        runDecisions();
        assertThat(mine.grants).isZero();

        mirror.onResponse(false, List.of(delete("holder", 13)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aWaiterIsNotGrantedWhileAnyOlderKeyIsLeft() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        mirror.seed(12, List.of(kv("first", 6, 6), kv("second", 8, 8), kv("mine", 10, 10)), this.decisions);

        mirror.onResponse(false, List.of(delete("second", 13)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isZero();
    }

    @Test
    void nothingIsDecidedBeforeTheSeedingReadAnswers() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);

        boolean seed = mirror.onResponse(true, List.of(put("mine", 10, 10)), this.decisions);
        mirror.onResponse(false, List.of(delete("holder", 11)), this.decisions);
        mirror.decide(mine);

        assertThat(seed).isTrue();
        assertThat(this.decisions).isEmpty();
        assertThat(mine.grants).isZero();
        assertThat(mirror.isSeeded()).isFalse();
    }

    @Test
    void onlyTheFirstConfirmationAsksForTheSeedingRead() {
        QueueMirror mirror = new QueueMirror(new RecordingWaiter(10));

        assertThat(mirror.onResponse(true, List.of(), this.decisions)).isTrue();
        assertThat(mirror.onResponse(true, List.of(), this.decisions)).isFalse();
    }

    @Test
    void aKeyTheSeedingReadNoLongerShowsIsNotBroughtBackByItsBufferedPut() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        // The put of "gone" (9) arrived before the read answered; its delete (11) is older than the
        // read (12) but its event comes later. Applied again, the put would put "gone" before me.
        mirror.onResponse(false, List.of(put("gone", 9, 9), put("mine", 10, 10)), this.decisions);

        mirror.seed(12, List.of(kv("mine", 10, 10)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aKeyBothBufferedAndReadIsInTheQueueOnce() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        mirror.onResponse(false, List.of(put("holder", 8, 8), put("mine", 10, 10)), this.decisions);
        mirror.seed(12, List.of(kv("holder", 8, 8), kv("mine", 10, 10)), this.decisions);
        runDecisions();
        assertThat(mine.grants).isZero();

        mirror.onResponse(false, List.of(delete("holder", 14)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aMirrorSeededBeforeMyPutWaitsForTheEventOfMyKey() {
        RecordingWaiter mine = new RecordingWaiter(15);
        QueueMirror mirror = new QueueMirror(new RecordingWaiter(10));
        confirm(mirror);
        mirror.seed(12, List.of(kv("holder", 8, 8), kv("other", 10, 10)), this.decisions);
        mirror.subscribe(mine);
        mirror.onResponse(false, List.of(delete("holder", 13), delete("other", 14)), this.decisions);
        this.decisions.clear();

        mirror.decide(mine);
        assertThat(mine.grants).as("the mirror has not reached revision 15 yet").isZero();
        assertThat(mine.gone)
                .as("my key is not gone, the mirror has not seen it yet")
                .isZero();

        mirror.onResponse(false, List.of(put("mine", 15, 15)), this.decisions);
        runDecisions();

        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aWaiterWhoseKeyDisappearsIsToldSoAndNotGranted() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        mirror.seed(12, List.of(kv("holder", 8, 8), kv("mine", 10, 10)), this.decisions);

        mirror.onResponse(false, List.of(delete("mine", 13)), this.decisions);
        runDecisions();

        assertThat(mine.gone).isEqualTo(1);
        assertThat(mine.grants).isZero();
    }

    @Test
    void aWaiterWithoutASessionIsNotGranted() {
        RecordingWaiter mine = new RecordingWaiter(10, null);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);

        mirror.seed(12, List.of(kv("mine", 10, 10)), this.decisions);

        assertThat(this.decisions).isEmpty();
    }

    @Test
    void theSuccessorIsTheLocalWaiterRightBehindTheHolder() {
        RecordingWaiter next = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(next);
        confirm(mirror);
        mirror.seed(12, List.of(kv("holder", 8, 8), kv("next", 10, 10)), this.decisions);

        Successor successor = mirror.successorOf(8);

        assertThat(successor).isNotNull();
        assertThat(successor.key()).isEqualTo(SyntheticKeyValues.PREFIX + "next");
        assertThat(successor.revision()).isEqualTo(10);
        assertThat(successor.waiter()).isSameAs(next);
    }

    @Test
    void thereIsNoSuccessorUnlessTheReleasedKeyIsOldestAndTheNextWaitsHere() {
        RecordingWaiter local = new RecordingWaiter(12);
        QueueMirror mirror = new QueueMirror(local);
        assertThat(mirror.successorOf(8)).as("not seeded").isNull();

        confirm(mirror);
        mirror.seed(13, List.of(kv("holder", 8, 8), kv("remote", 10, 10), kv("local", 12, 12)), this.decisions);

        assertThat(mirror.successorOf(8)).as("a remote waiter is next").isNull();
        assertThat(mirror.successorOf(10)).as("not the oldest key").isNull();
    }

    @Test
    void readersWaitOnlyForTheWriterAheadOfThemAndAreAllGrantedWhenItGoes() {
        RecordingWaiter first = new RecordingWaiter(10);
        RecordingWaiter second = new RecordingWaiter(11);
        RecordingWaiter writer = new RecordingWaiter(12);
        QueueMirror mirror = new QueueMirror(first);
        mirror.subscribe(second);
        mirror.subscribe(writer);
        confirm(mirror);
        mirror.seed(
                13,
                List.of(
                        kv("!shared:reading", 6, 6),
                        kv("writing", 8, 8),
                        kv("!shared:first", 10, 10),
                        kv("!shared:second", 11, 11),
                        kv("late-writer", 12, 12)),
                this.decisions);
        runDecisions();
        assertThat(first.grants + second.grants + writer.grants).isZero();

        assertThat(mirror.successorOf(6))
                .as("the reader's release lets in the remote writer")
                .isNull();
        mirror.onResponse(false, List.of(delete("!shared:reading", 14)), this.decisions);
        runDecisions();
        assertThat(mirror.successorOf(8))
                .isNotNull()
                .satisfies(next -> assertThat(next.waiter()).isSameAs(first));

        mirror.onResponse(false, List.of(delete("writing", 15)), this.decisions);
        runDecisions();
        assertThat(first.grants).isEqualTo(1);
        assertThat(second.grants).isEqualTo(1);
        assertThat(writer.grants).as("a writer behind readers waits for them").isZero();

        mirror.onResponse(false, List.of(delete("!shared:first", 16), delete("!shared:second", 17)), this.decisions);
        runDecisions();
        assertThat(writer.grants).isEqualTo(1);
    }

    @Test
    void aSemaphoreKeyIsGrantedWhenFewerThanItsPermitsAreAheadOfIt() {
        RecordingWaiter mine = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(mine);
        confirm(mirror);
        mirror.seed(
                12,
                List.of(kv("#permits-2:a", 6, 6), kv("#permits-2:b", 8, 8), kv("#permits-2:mine", 10, 10)),
                this.decisions);
        runDecisions();
        assertThat(mine.grants).isZero();
        assertThat(mirror.successorOf(8))
                .as("releasing either holder frees a permit")
                .isNotNull();

        mirror.onResponse(false, List.of(delete("#permits-2:a", 13)), this.decisions);
        runDecisions();
        assertThat(mine.grants).isEqualTo(1);
    }

    @Test
    void aKeyBehindAnotherNumberOfPermitsIsToldItConflicts() {
        RecordingWaiter exclusive = new RecordingWaiter(10);
        QueueMirror mirror = new QueueMirror(exclusive);
        confirm(mirror);
        mirror.seed(12, List.of(kv("#permits-3:a", 6, 6), kv("mine", 10, 10)), this.decisions);
        runDecisions();

        assertThat(exclusive.conflicts).isEqualTo(1);
        assertThat(exclusive.grants).isZero();
    }

    @Test
    void theLastWaiterLeavingClosesTheMirror() {
        RecordingWaiter first = new RecordingWaiter(10);
        RecordingWaiter second = new RecordingWaiter(11);
        QueueMirror mirror = new QueueMirror(first);
        assertThat(mirror.subscribe(second)).isTrue();

        assertThat(mirror.unsubscribe(first)).isFalse();
        assertThat(mirror.unsubscribe(second)).isTrue();

        assertThat(mirror.isClosed()).isTrue();
        assertThat(mirror.subscribe(new RecordingWaiter(12))).isFalse();
    }

    @Test
    void aFailedWatchHandsEveryWaiterBackOnceAndDecidesNothingMore() {
        RecordingWaiter first = new RecordingWaiter(10);
        RecordingWaiter second = new RecordingWaiter(11);
        QueueMirror mirror = new QueueMirror(first);
        mirror.subscribe(second);
        confirm(mirror);

        assertThat(mirror.fail()).containsExactlyInAnyOrder(first, second);
        assertThat(mirror.fail()).isNull();

        mirror.seed(12, List.of(kv("first", 10, 10)), this.decisions);
        assertThat(this.decisions).isEmpty();
        assertThat(mirror.isSeededAndOpen()).isFalse();
    }

    private void confirm(QueueMirror mirror) {
        assertThat(mirror.onResponse(true, List.of(), this.decisions)).isTrue();
    }

    private void runDecisions() {
        this.decisions.forEach(Runnable::run);
        this.decisions.clear();
    }
}
