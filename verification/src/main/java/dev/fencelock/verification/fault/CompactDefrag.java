package dev.fencelock.verification.fault;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.CompactOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Compacts etcd's history up to the current revision four times, 500 ms apart, then defragments every member in
 * turn, as an operator's maintenance would: watches that lag behind lose their start revision, and a member being
 * defragmented answers nothing for a moment.
 */
final class CompactDefrag implements Fault {

    private static final int COMPACTIONS = 4;
    private static final Duration BETWEEN = Duration.ofMillis(500);

    @Override
    public String name() {
        return FaultKind.COMPACT_DEFRAG.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        Client etcd = target.etcd().client();
        long start = System.nanoTime();
        long revision = 0;
        int compactions = 0;
        for (int i = 0; i < COMPACTIONS; i++) {
            long current = etcd.getKVClient()
                    .get(ByteSequence.from("/", StandardCharsets.UTF_8))
                    .get(10, TimeUnit.SECONDS)
                    .getHeader()
                    .getRevision();
            // Nothing was written since the last compaction (another fault may have stalled the workload):
            // compacting the same revision again is refused, and would test nothing new.
            if (current > revision) {
                revision = current;
                etcd.getKVClient()
                        .compact(
                                revision,
                                CompactOption.builder()
                                        .withCompactPhysical(true)
                                        .build())
                        .get(10, TimeUnit.SECONDS);
                compactions++;
            }
            target.hold(BETWEEN);
        }
        for (String member : target.etcd().memberEndpoints()) {
            etcd.getMaintenanceClient().defragmentMember(member).get(30, TimeUnit.SECONDS);
        }
        target.window(
                name(),
                compactions + " compactions (last at revision " + revision + "), then defragmented every member",
                start,
                System.nanoTime());
    }
}
