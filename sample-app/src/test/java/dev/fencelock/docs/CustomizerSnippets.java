package dev.fencelock.docs;

import dev.fencelock.autoconfigure.LockClientBuilderCustomizer;
import dev.fencelock.autoconfigure.etcd.EtcdClientBuilderCustomizer;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** docs/spring-boot.md, "Customizing the clients": one customizer of each kind. */
@Configuration(proxyBeanMethods = false)
class CustomizerSnippets {

    @Bean
    @Order(0)
    EtcdClientBuilderCustomizer etcdKeepAlive() {
        return (builder) -> builder.keepaliveTime(Duration.ofSeconds(20)).maxInboundMessageSize(8 * 1024 * 1024);
    }

    @Bean
    LockClientBuilderCustomizer shortTryLocks() {
        return (builder) -> builder.tryTimeout(Duration.ofSeconds(2));
    }
}
