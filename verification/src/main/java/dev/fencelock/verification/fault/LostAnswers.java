package dev.fencelock.verification.fault;

import java.time.Duration;

/**
 * Lost responses on ZooKeeper: twice in 5 s, every answer to one worker is dropped for 700 ms while its requests
 * still reach the server, then its connections are closed. Creates and deletes it sent meanwhile were applied, yet
 * the worker never heard so: it must find its node again rather than queue a second one, and must not take a lock
 * its session no longer vouches for. 700 ms is less than the client's read timeout (two thirds of a 2 s session),
 * so it is the closed connection, not the client's own timeout, that ends each stretch.
 */
final class LostAnswers implements Fault {

    private static final Duration DROPPING = Duration.ofMillis(700);
    private static final Duration BETWEEN = Duration.ofMillis(1_800);
    private static final int STRETCHES = 2;

    @Override
    public String name() {
        return FaultKind.LOST_RESPONSES.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        long start = System.nanoTime();
        for (int i = 0; i < STRETCHES; i++) {
            try {
                worker.dropAnswers();
                target.hold(DROPPING);
            } finally {
                worker.reconnectToStore();
            }
            target.hold(BETWEEN);
        }
        target.window(
                name(),
                "dropped every answer to " + worker.id() + " for " + DROPPING.toMillis() + " ms, " + STRETCHES
                        + " times, each ended by closing its connections",
                start,
                System.nanoTime());
    }
}
