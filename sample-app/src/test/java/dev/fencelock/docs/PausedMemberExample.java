package dev.fencelock.docs;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.fault.ProcessControl;
import java.time.Duration;

/** docs/testing.md, "Pausing processes". */
class PausedMemberExample {

    void pauseTheLeader(EtcdCluster cluster) {
        long pid = cluster.awaitLeader(Duration.ofSeconds(10)).pid();
        ProcessControl.pause(pid); // SIGSTOP: sockets stay open, nothing answers
        try {
            // ... assert what your client does while the leader is frozen
        } finally {
            ProcessControl.resume(pid);
        }
    }
}
