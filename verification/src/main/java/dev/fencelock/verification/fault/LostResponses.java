package dev.fencelock.verification.fault;

import java.time.Duration;

/**
 * For 5 s, drops the answers of some Txns of one worker after etcd applied them (twice 2 per route): the worker
 * must resend its guarded writes without creating a second holder or losing track of its lock.
 */
final class LostResponses implements Fault {

    private static final int PER_ROUTE = 2;
    private static final Duration HALF = Duration.ofMillis(2_500);

    @Override
    public String name() {
        return FaultKind.LOST_RESPONSES.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        long start = System.nanoTime();
        try {
            worker.dropTxnAnswers(PER_ROUTE);
            target.hold(HALF);
            worker.dropTxnAnswers(PER_ROUTE);
            target.hold(HALF);
        } finally {
            worker.dropTxnAnswers(0);
        }
        target.window(
                name(),
                "dropped the answers of up to " + 2 * PER_ROUTE + " Txns per route of " + worker.id(),
                start,
                System.nanoTime());
    }
}
