package dev.fencelock.docs;

import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.interceptor.EnableDistributedLocks;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** docs/spring-boot.md and README.md, "Spring without Boot": @DistributedLock on, without Boot. */
@Configuration
@EnableDistributedLocks
class LockConfiguration {

    @Bean(destroyMethod = "close")
    LockClient lockClient() {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints("http://etcd-1:2379", "http://etcd-2:2379", "http://etcd-3:2379")
                .build();
        return LockClient.builder(backend)
                .defaultWaitTimeout(Duration.ofSeconds(10))
                .build();
    }
}
