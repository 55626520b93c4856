package dev.fencelock.interceptor;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Turns on {@link dev.fencelock.annotation.DistributedLock @DistributedLock} in a Spring
 * Framework application without Spring Boot, as {@code @EnableTransactionManagement} turns on
 * {@code @Transactional}. The application defines the {@link dev.fencelock.LockClient} bean:
 *
 * <pre>{@code
 * @Configuration
 * @EnableDistributedLocks
 * class LockConfiguration {
 *
 *     @Bean(destroyMethod = "close")
 *     LockClient lockClient() {
 *         return LockClient.builder(EtcdLockBackend.builder().endpoints("http://etcd:2379").build()).build();
 *     }
 * }
 * }</pre>
 *
 * <p>It registers what {@link DistributedLockAdvisorConfiguration} describes: the advisor and its
 * interceptor, an auto-proxy creator when the context has none, the SpEL key resolver, the startup
 * check of annotated methods, and, with {@code spring-tx} on the class path, the listener that
 * tells a locked call how its transactions ended. A bean of the application's own of the key
 * resolver's, interceptor's, advisor's or method check's type replaces FenceLock's. The
 * configuration is imported after the application's other configuration classes, so that those
 * beans are seen wherever they are declared.
 *
 * <p>The annotation has no attributes: the advisor's order and the advice's options are read from
 * the {@code Environment} ({@code fencelock.aspect.order}, {@code
 * fencelock.aspect.interrupt-on-lost}, {@code fencelock.aspect.release-in-background}, {@code
 * spring.aop.proxy-target-class}), with the defaults Spring Boot applications get, so one setting
 * has one name whether Boot is there or not. A Spring Boot application needs no {@code
 * @EnableDistributedLocks}: FenceLock's auto-configuration imports the same configuration.
 *
 * <p>It lives beside the interceptor, not beside {@code @DistributedLock}: the {@code annotation}
 * package holds only what domain code that annotates methods needs and depends on nothing else of
 * FenceLock's Spring support, while this switch names the configuration of the {@code interceptor}
 * package, which in turn reads the annotation. Putting both in one package would make the two
 * packages depend on each other.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DistributedLockConfigurationSelector.class)
public @interface EnableDistributedLocks {}
