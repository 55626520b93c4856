package dev.fencelock.zookeeper.docs;

import dev.fencelock.LockClient;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;

/** The plain-Java snippet of docs/zookeeper.md, compiled. */
final class ZooKeeperDocsSnippet {

    private ZooKeeperDocsSnippet() {}

    static LockClient locks() {
        LockClient locks = LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString("zk1:2181,zk2:2181,zk3:2181")
                        .namespace("/fencelock") // the default
                        .build())
                .build();
        return locks;
    }
}
