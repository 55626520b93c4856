package dev.fencelock.zookeeper.docs;

import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import dev.fencelock.zookeeper.ZooKeeperTls;
import java.nio.file.Path;

/** The plain-Java TLS snippet of docs/zookeeper.md, compiled. */
final class ZooKeeperTlsDocsSnippet {

    private ZooKeeperTlsDocsSnippet() {}

    static ZooKeeperLockBackend backend(String keyStorePassword) {
        return ZooKeeperLockBackend.builder()
                .connectString("zk1:2281,zk2:2281,zk3:2281")
                .tls(ZooKeeperTls.create()
                        .trustStore(Path.of("/etc/fencelock/zk-ca.pem"))
                        .keyStore(Path.of("/etc/fencelock/zk-client.p12"), keyStorePassword, null))
                .build();
    }
}
