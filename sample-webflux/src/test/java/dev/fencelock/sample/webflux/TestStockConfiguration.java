package dev.fencelock.sample.webflux;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.context.annotation.Role;
import reactor.test.scheduler.VirtualTimeScheduler;

/** What the tests observe and control in the application: when holds end, and when the lock is held. */
@TestConfiguration(proxyBeanMethods = false)
class TestStockConfiguration {

    /** A held reservation goes on only when a test advances this clock; a hold never ends by itself. */
    @Bean(destroyMethod = "dispose")
    @Primary
    VirtualTimeScheduler holdClock() {
        return VirtualTimeScheduler.create();
    }

    // Infrastructure, so that the auto-proxy creator that applies the lock's advisor applies this one too.
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static HeldIntervals heldIntervals() {
        return new HeldIntervals();
    }
}
