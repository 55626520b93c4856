package dev.fencelock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockMode;
import dev.fencelock.spi.QueueWalk.Standing;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QueueWalkTest {

    private static final LockKind X = LockKind.EXCLUSIVE;

    private static final LockKind S = LockKind.SHARED;

    @Test
    void anExclusiveKeyHoldsOnlyWithNothingAheadOfIt() {
        assertThat(QueueWalk.standing(X, List.of())).isEqualTo(Standing.HOLDS);
        assertThat(QueueWalk.standing(X, List.of(S))).isEqualTo(Standing.WAITS);
        assertThat(QueueWalk.standing(X, List.of(X))).isEqualTo(Standing.WAITS);
    }

    @Test
    void readersHoldTogetherAndWaitOnlyForTheWritersAheadOfThem() {
        assertThat(walk(S, S, S)).containsExactly(Standing.HOLDS, Standing.HOLDS, Standing.HOLDS);
        // A writer queued behind readers waits; readers behind the writer wait for it (no starvation).
        assertThat(walk(S, S, X, S, S))
                .containsExactly(Standing.HOLDS, Standing.HOLDS, Standing.WAITS, Standing.WAITS, Standing.WAITS);
        assertThat(walk(X, S, S)).containsExactly(Standing.HOLDS, Standing.WAITS, Standing.WAITS);
    }

    @Test
    void aSemaphoreAdmitsItsPermitsInArrivalOrder() {
        LockKind three = LockKind.permits(3);
        assertThat(walk(three, three, three, three, three))
                .containsExactly(Standing.HOLDS, Standing.HOLDS, Standing.HOLDS, Standing.WAITS, Standing.WAITS);
    }

    @Test
    void aKeyBehindAnotherNumberOfPermitsConflicts() {
        LockKind three = LockKind.permits(3);
        LockKind five = LockKind.permits(5);
        assertThat(walk(three, five)).containsExactly(Standing.HOLDS, Standing.CONFLICTS);
        assertThat(walk(X, three)).containsExactly(Standing.HOLDS, Standing.CONFLICTS);
        assertThat(walk(three, S)).containsExactly(Standing.HOLDS, Standing.CONFLICTS);
        assertThat(walk(three, X)).containsExactly(Standing.HOLDS, Standing.CONFLICTS);
        // A conflicting key in the middle: the keys behind it see both kinds ahead and conflict whichever is theirs.
        assertThat(walk(three, five, three)).containsExactly(Standing.HOLDS, Standing.CONFLICTS, Standing.CONFLICTS);
        QueueWalk walk = new QueueWalk();
        walk.next(three);
        assertThat(walk.conflictingAhead(X)).isEqualTo(three);
        assertThat(QueueWalk.conflictMessage("reports", X, three))
                .contains("'reports'", "a semaphore of 3 permits", "an exclusive lock");
    }

    @Test
    void holdersAtAnyMomentAreCompatibleAndNeverMoreThanTheKindAllows() {
        // Random queues, keys deleted at random: whoever holds at each step is a valid set of holders.
        Random random = new Random(17);
        List<LockKind> kinds = List.of(X, S, S, LockKind.permits(2));
        for (int round = 0; round < 2000; round++) {
            LockKind semaphore = LockKind.permits(2 + random.nextInt(3));
            List<LockKind> queue = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(8); i++) {
                LockKind kind = kinds.get(random.nextInt(kinds.size()));
                queue.add(kind.isSemaphore() ? semaphore : kind);
            }
            while (!queue.isEmpty()) {
                List<LockKind> holders = new ArrayList<>();
                QueueWalk walk = new QueueWalk();
                for (LockKind kind : queue) {
                    if (walk.next(kind) == Standing.HOLDS) {
                        holders.add(kind);
                    }
                }
                assertThat(holders).isNotEmpty();
                if (holders.size() > 1) {
                    assertThat(holders)
                            .as("holders together in %s", queue)
                            .allMatch(kind -> kind.equals(S) || kind.equals(holders.get(0)));
                    assertThat(holders.stream().allMatch(kind -> kind.equals(S))
                                    || holders.size() <= holders.get(0).permits())
                            .as("holders of %s", queue)
                            .isTrue();
                    assertThat(holders).doesNotContain(X);
                }
                queue.remove(random.nextInt(queue.size()));
            }
        }
    }

    @Test
    void aSharedSemaphoreIsRefused() {
        assertThatThrownBy(() -> new LockKind(LockMode.SHARED, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(LockKind.permits(1)).isEqualTo(X);
        assertThat(X.isExclusive()).isTrue();
        assertThat(S.isExclusive()).isFalse();
        assertThat(LockKind.permits(2).isExclusive()).isFalse();
    }

    private static List<Standing> walk(LockKind... queue) {
        QueueWalk walk = new QueueWalk();
        List<Standing> standings = new ArrayList<>();
        for (LockKind kind : queue) {
            standings.add(walk.next(kind));
        }
        return standings;
    }
}
