package dev.fencelock.interceptor;

import dev.fencelock.LockClient;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
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
 * {@code @Aspect} beans, not infrastructure advisors). {@link EnableDistributedLocks} imports it,
 * and so does FenceLock's Spring Boot auto-configuration.
 *
 * <p>The key resolver, interceptor, advisor and method check are each created only when the
 * application has not defined a bean of that type. Their settings are read from the {@link
 * Environment}, under the same names with or without Spring Boot: {@value #ORDER_PROPERTY},
 * {@value #INTERRUPT_ON_LOST_PROPERTY} and {@value #RELEASE_IN_BACKGROUND_PROPERTY}.
 *
 * <p>The advisor and interceptor are created while the first beans are post-processed, so their
 * methods are static and every application bean they use is looked up on first use.
 */
@Configuration(proxyBeanMethods = false)
@Import({
    DistributedLockAdvisorConfiguration.AutoProxyRegistrar.class,
    DistributedLockAdvisorConfiguration.CallTransactions.class
})
public class DistributedLockAdvisorConfiguration {

    /** Order of the lock advisor; see {@link DistributedLockAdvisor#DEFAULT_ORDER}. */
    public static final String ORDER_PROPERTY = "fencelock.aspect.order";

    /** Whether to interrupt the thread of a locked method when its lock is lost ({@code true}). */
    public static final String INTERRUPT_ON_LOST_PROPERTY = "fencelock.aspect.interrupt-on-lost";

    /** Whether a locked method returns without waiting for the store to delete its lock ({@code false}). */
    public static final String RELEASE_IN_BACKGROUND_PROPERTY = "fencelock.aspect.release-in-background";

    @Bean
    @Conditional(MissingBeanCondition.class)
    LockKeyResolver lockKeyResolver() {
        return new SpelLockKeyResolver();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @Conditional(MissingBeanCondition.class)
    static DistributedLockInterceptor distributedLockInterceptor(
            ObjectProvider<LockClient> lockClient,
            ObjectProvider<LockKeyResolver> keyResolver,
            ObjectProvider<LockCallObserver> observer,
            Environment environment) {
        return new DistributedLockInterceptor(
                SingletonSupplier.of(lockClient::getObject),
                SingletonSupplier.of(keyResolver::getObject),
                environment,
                environment.getProperty(INTERRUPT_ON_LOST_PROPERTY, Boolean.class, true),
                environment.getProperty(RELEASE_IN_BACKGROUND_PROPERTY, Boolean.class, false),
                SingletonSupplier.of(() -> observer.getIfUnique(() -> LockCallObserver.NONE)));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @Conditional(MissingBeanCondition.class)
    static DistributedLockAdvisor distributedLockAdvisor(
            DistributedLockInterceptor interceptor, Environment environment) {
        return new DistributedLockAdvisor(
                interceptor,
                environment.getProperty(ORDER_PROPERTY, Integer.class, DistributedLockAdvisor.DEFAULT_ORDER));
    }

    @Bean
    @Conditional(MissingBeanCondition.class)
    DistributedLockMethodCheck distributedLockMethodCheck(
            ConfigurableListableBeanFactory beanFactory, DistributedLockInterceptor interceptor) {
        return new DistributedLockMethodCheck(beanFactory, interceptor);
    }

    /** Tells locked calls how their transactions ended, when Spring's transaction support is present. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(TransactionSupportCondition.class)
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
