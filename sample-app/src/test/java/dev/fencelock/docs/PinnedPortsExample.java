package dev.fencelock.docs;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** docs/testing.md, "Fixed ports". Compiled, not run: fixed ports may be taken on a shared machine. */
class PinnedPortsExample {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.of(
            EtcdCluster.builder().members(3).clientPorts(23790, 23792, 23794).peerPorts(23791, 23793, 23795));
}
