package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.interceptor.DistributedLockAdvisor;
import dev.fencelock.interceptor.DistributedLockInterceptor;
import dev.fencelock.interceptor.DistributedLockMethodCheck;
import dev.fencelock.interceptor.LockCallObserver;
import dev.fencelock.interceptor.LockKeyResolver;
import dev.fencelock.interceptor.SpelLockKeyResolver;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@code @DistributedLock} advisor, built like Spring's own {@code @Transactional} support: an
 * infrastructure advisor and an auto-proxy creator, so annotated methods are locked whether or not
 * AspectJ is on the class path and whatever {@code spring.aop.auto} says (that property governs
 * {@code @Aspect} beans, not infrastructure advisors).
 *
 * <p>The advisor and interceptor are created while the first beans are post-processed, so their
 * methods are static and every application bean they use is looked up on first use.
 */
@Configuration(proxyBeanMethods = false)
@Import({
    DistributedLockAdvisorConfiguration.AutoProxyRegistrar.class,
    DistributedLockAdvisorConfiguration.CallTransactions.class
})
class DistributedLockAdvisorConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockKeyResolver lockKeyResolver() {
        return new SpelLockKeyResolver();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockInterceptor distributedLockInterceptor(
            ObjectProvider<LockClient> lockClient,
            ObjectProvider<LockKeyResolver> keyResolver,
            ObjectProvider<LockCallObserver> observer,
            Environment environment) {
        FenceLockProperties.Aspect settings = adviceSettings(environment);
        return new DistributedLockInterceptor(
                SingletonSupplier.of(lockClient::getObject),
                SingletonSupplier.of(keyResolver::getObject),
                environment,
                settings.isInterruptOnLost(),
                settings.isReleaseInBackground(),
                SingletonSupplier.of(() -> observer.getIfUnique(() -> LockCallObserver.NONE)));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockAdvisor distributedLockAdvisor(
            DistributedLockInterceptor interceptor, Environment environment) {
        return new DistributedLockAdvisor(
                interceptor, adviceSettings(environment).getOrder());
    }

    @Bean
    @ConditionalOnMissingBean
    DistributedLockMethodCheck distributedLockMethodCheck(
            ConfigurableListableBeanFactory beanFactory, DistributedLockInterceptor interceptor) {
        return new DistributedLockMethodCheck(beanFactory, interceptor);
    }

    /**
     * {@code fencelock.aspect.*}, bound from the environment rather than taken from the {@link
     * FenceLockProperties} bean, which must not be created while proxies are being set up.
     */
    private static FenceLockProperties.Aspect adviceSettings(Environment environment) {
        return Binder.get(environment).bindOrCreate("fencelock.aspect", FenceLockProperties.Aspect.class);
    }

    /** Tells locked calls how their transactions ended, when Spring's transaction support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.transaction.ConfigurableTransactionManager")
    static class CallTransactions {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static CallTransactionListenerPostProcessor fenceLockCallTransactionListenerPostProcessor() {
            return new CallTransactionListenerPostProcessor();
        }
    }

    /**
     * Makes sure an auto-proxy creator exists, as {@code @EnableTransactionManagement} does; it
     * proxies classes rather than interfaces unless {@code spring.aop.proxy-target-class=false},
     * as Spring Boot's transaction and AOP auto-configurations do.
     */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

        private final Environment environment;

        AutoProxyRegistrar(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            if (this.environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
                AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
            }
        }
    }
}
