package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.Optional;

/**
 * Cuts one worker off from every member of the store for the lease TTL plus 2 s, while one of its operations stays
 * in its critical section after reading its counter: its lease (on ZooKeeper, its session) expires in the store and
 * another worker takes the lock, while the cut-off worker still has its transaction open and goes on to write.
 */
final class ClientCut implements Fault {

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);

    @Override
    public String name() {
        return FaultKind.CLIENT_CUT.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        Duration cut = target.leaseTtl().plusSeconds(2);
        worker.linger(new Linger(Linger.Phase.AFTER_READ, cut.plusMillis(200)));
        Optional<FaultTarget.LingerNotice> notice = worker.awaitLingering(NOTICE_TIMEOUT);
        long start = System.nanoTime();
        try {
            worker.cutFromStore();
            target.hold(cut);
        } finally {
            worker.reconnectToStore();
        }
        target.window(
                name(),
                worker.id() + " cut from " + target.store().label() + " for " + cut.toMillis() + " ms"
                        + notice.map(n -> ", " + n.operation() + " staying after reading " + n.key())
                                .orElse(""),
                start,
                System.nanoTime());
    }
}
