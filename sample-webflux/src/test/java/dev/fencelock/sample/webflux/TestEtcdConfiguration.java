package dev.fencelock.sample.webflux;

import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.test.etcd.EtcdCluster;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A single-member etcd from the test kit, started with the application and stopped with it, as the
 * application's {@link EtcdConnectionDetails}. For local development only; one member has no fault
 * tolerance.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestEtcdConfiguration {

    @Bean(destroyMethod = "close")
    EtcdCluster developmentEtcd() {
        return EtcdCluster.start(1);
    }

    @Bean
    EtcdConnectionDetails developmentEtcdConnectionDetails(EtcdCluster developmentEtcd) {
        return developmentEtcd::endpoints;
    }
}
