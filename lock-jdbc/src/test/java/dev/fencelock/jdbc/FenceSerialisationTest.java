package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two holders of one resource write concurrently on two connections: a stale one (token 5) and
 * the new one (token 9). Whatever the interleaving, the outcome must be a legal serial order: the
 * stale write before the new one, or the stale write refused; never the stale write last (a lost
 * update). The first transaction holds the fence row lock (guard done) before the second starts;
 * every session gives up on a row lock after 5 s, so nothing hangs.
 */
class FenceSerialisationTest {

    private static final String RESOURCE = "stock:apple";

    private static final long BOUND_SECONDS = 10;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopExecutor() throws InterruptedException {
        this.executor.shutdownNow();
        assertThat(this.executor.awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS))
                .isTrue();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void newHolderWaitsForTheStaleHoldersCommitAndWritesLast(TestDatabase database) throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture, true);

            staleFirst(fixture);

            assertThat(fixture.qty("apple")).isEqualTo(20L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void newHolderWaitsForTheStaleHoldersFirstInsertOfTheFenceRow(TestDatabase database) throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture, false);

            staleFirst(fixture);

            assertThat(fixture.qty("apple")).isEqualTo(20L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void staleHolderWaitingBehindTheNewOneIsRefusedAfterItsCommit(TestDatabase database) throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture, true);

            newFirst(fixture);

            assertThat(fixture.qty("apple")).isEqualTo(20L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void staleHolderRacingTheNewHoldersFirstInsertIsRefused(TestDatabase database) throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture, false);

            newFirst(fixture);

            assertThat(fixture.qty("apple")).isEqualTo(20L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    /** Stale holder guards first; the new holder must wait for its commit, then write on top. */
    private void staleFirst(FenceFixture fixture) throws Exception {
        try (Connection stale = fixture.transaction()) {
            fixture.guard.check(stale, new Fence(RESOURCE, 5, null)); // fence row locked from here

            Future<Void> newHolder = writeInBackground(fixture, 9, 20);
            assertStillWaiting(newHolder);
            fixture.setQty(stale, "apple", 10);
            stale.commit();

            newHolder.get(BOUND_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** New holder guards first; the stale one must wait for its commit, then be refused. */
    private void newFirst(FenceFixture fixture) throws Exception {
        try (Connection newHolder = fixture.transaction()) {
            fixture.guard.check(newHolder, new Fence(RESOURCE, 9, null));

            Future<Void> stale = writeInBackground(fixture, 5, 10);
            assertStillWaiting(stale);
            fixture.setQty(newHolder, "apple", 20);
            newHolder.commit();

            assertThatThrownBy(() -> stale.get(BOUND_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining("token 9");
        }
    }

    private static void seed(FenceFixture fixture, boolean withFenceRow) throws SQLException {
        try (Connection connection = fixture.transaction()) {
            fixture.insertStock(connection, "apple", 0);
            if (withFenceRow) {
                fixture.guard.check(connection, new Fence(RESOURCE, 1, null));
            }
            connection.commit();
        }
    }

    /** Runs guard + write + commit for {@code token} on a second connection. */
    private Future<Void> writeInBackground(FenceFixture fixture, long token, int qty) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Future<Void> result = this.executor.submit(() -> {
            try (Connection connection = fixture.transaction()) {
                started.countDown();
                try {
                    fixture.guard.check(connection, new Fence(RESOURCE, token, null));
                    fixture.setQty(connection, "apple", qty);
                    connection.commit();
                } catch (SQLException | RuntimeException ex) {
                    connection.rollback();
                    throw ex;
                }
            }
            return null;
        });
        assertThat(started.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        return result;
    }

    /**
     * The other transaction must be blocked on the fence row, not finished. A window, not a wait: a
     * slow machine can only let a wrongly finished transaction go unseen, never fail this check.
     */
    private static void assertStillWaiting(Future<Void> other) {
        assertThatThrownBy(() -> other.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    }
}
