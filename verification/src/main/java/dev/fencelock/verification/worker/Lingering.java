package dev.fencelock.verification.worker;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The worker's one pending {@link Linger} order, shared by its threads: the first operation to reach the order's
 * phase takes it and stays, until the order's time is up or the orchestrator ends the stay early ({@code endlinger}),
 * which lets a fault end a stay on what it sees happen instead of on a guess of how long that takes.
 */
final class Lingering {

    private final AtomicReference<@Nullable Order> pending = new AtomicReference<>();
    private final AtomicReference<@Nullable Order> taken = new AtomicReference<>();

    /** An order taken by an operation, and the latch that ends its stay. */
    record Order(Linger linger, CountDownLatch end) {

        /** Stays for the order's duration, or until the orchestrator ends the stay. */
        void stay() {
            try {
                end.await(linger.duration().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Replaces any pending order. */
    void order(Linger linger) {
        pending.set(new Order(linger, new CountDownLatch(1)));
    }

    /** Withdraws the pending order, if no operation took it yet. */
    void withdraw() {
        pending.set(null);
    }

    /** Ends the stay of the operation that took the last order, now; nothing if none took it. */
    void end() {
        Order order = taken.get();
        if (order != null) {
            order.end().countDown();
        }
    }

    /**
     * Takes the pending order if it is for {@code phase}, and no other thread took it first.
     *
     * @return the order taken, or {@code null}
     */
    @Nullable
    Order take(Linger.Phase phase) {
        Order order = pending.get();
        if (order == null || order.linger().phase() != phase || !pending.compareAndSet(order, null)) {
            return null;
        }
        taken.set(order);
        return order;
    }
}
