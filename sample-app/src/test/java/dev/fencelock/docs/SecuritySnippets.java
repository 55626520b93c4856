package dev.fencelock.docs;

import dev.fencelock.etcd.EtcdLockBackend;
import java.io.File;
import java.io.UncheckedIOException;
import java.time.Duration;
import javax.net.ssl.SSLException;

/** docs/security.md, "TLS from a Spring Boot SSL bundle": the same without Spring. */
class SecuritySnippets {

    void plainJavaTls(String password) {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints("https://etcd-1:2379")
                .credentials("orders-service", password)
                .customizeClient(client -> {
                    try {
                        client.sslContext(ssl -> ssl.trustManager(new File("ca.crt"))
                                .keyManager(new File("client.crt"), new File("client.key"))); // PKCS#8 key here
                    } catch (SSLException ex) {
                        throw new UncheckedIOException(ex);
                    }
                })
                .build();
        backend.verifyAccess(Duration.ofSeconds(5)); // optional: the startup check below
    }
}
