package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.Optional;

/**
 * The zombie: {@code SIGSTOP}s a worker right after one of its operations read its counter, for the lease TTL plus
 * 3 s, so the lease runs out while it is inside its critical section; then lets it run on and write what it
 * computed from its stale read.
 */
final class Zombie implements Fault {

    /** Long enough for the pause to land inside the critical section despite signal latency. */
    private static final Duration LINGER = Duration.ofMillis(300);

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);

    @Override
    public String name() {
        return FaultKind.ZOMBIE.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        Duration paused = target.leaseTtl().plusSeconds(3);
        worker.linger(new Linger(Linger.Phase.AFTER_READ, LINGER));
        Optional<FaultTarget.LingerNotice> notice = worker.awaitLingering(NOTICE_TIMEOUT);
        long start = System.nanoTime();
        try {
            worker.pause();
            target.hold(paused);
        } finally {
            worker.resume();
        }
        target.window(
                name(),
                "SIGSTOP " + worker.id() + " for " + paused.toMillis() + " ms, "
                        + notice.map(n -> "after " + n.operation() + " read " + n.key() + " (token " + n.token() + ")")
                                .orElse("outside a critical section (no operation reached one in time)"),
                start,
                System.nanoTime());
    }
}
