package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.aspect.DistributedLockAspect;
import dev.fencelock.aspect.DistributedLockMethodCheck;
import dev.fencelock.aspect.LockKeyResolver;
import dev.fencelock.aspect.SpelLockKeyResolver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/** The {@code @DistributedLock} aspect, when AspectJ's weaver is present for Spring AOP. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
class DistributedLockAspectConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockKeyResolver lockKeyResolver() {
        return new SpelLockKeyResolver();
    }

    @Bean
    @ConditionalOnMissingBean
    DistributedLockAspect distributedLockAspect(
            ObjectProvider<LockClient> lockClient,
            LockKeyResolver keyResolver,
            Environment environment,
            FenceLockProperties properties) {
        FenceLockProperties.Aspect aspect = properties.getAspect();
        return new DistributedLockAspect(
                SingletonSupplier.of(lockClient::getObject),
                keyResolver,
                environment,
                aspect.getOrder(),
                aspect.isInterruptOnLost(),
                aspect.isReleaseInBackground());
    }

    @Bean
    @ConditionalOnMissingBean
    DistributedLockMethodCheck distributedLockMethodCheck(
            ConfigurableListableBeanFactory beanFactory, DistributedLockAspect aspect) {
        return new DistributedLockMethodCheck(beanFactory, aspect);
    }
}
