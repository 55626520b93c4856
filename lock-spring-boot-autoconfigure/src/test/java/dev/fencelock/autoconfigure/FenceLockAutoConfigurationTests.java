package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientSettings;
import dev.fencelock.LockLease;
import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.PropertiesEtcdConnectionDetails;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.interceptor.DistributedLockAdvisor;
import dev.fencelock.interceptor.DistributedLockInterceptor;
import dev.fencelock.interceptor.DistributedLockMethodCheck;
import dev.fencelock.interceptor.EnableDistributedLocks;
import dev.fencelock.interceptor.LockKeyResolver;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.test.etcd.TestCertificates;
import io.etcd.jetcd.Client;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.test.util.ReflectionTestUtils;

class FenceLockAutoConfigurationTests {

    /** Builds clients for addresses where no etcd runs; the startup check would be the only one to call them. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.etcd.verify-on-startup=false");

    @Test
    void runByDefaultShouldCreateEtcdBackendClientAndAdvisor() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(EtcdLockBackend.class);
            assertThat(context).hasSingleBean(LockClient.class);
            assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
            assertThat(context).hasSingleBean(DistributedLockInterceptor.class);
            assertThat(context).hasSingleBean(DistributedLockMethodCheck.class);
            assertThat(context).hasSingleBean(LockKeyResolver.class);
            assertThat(context).hasSingleBean(PropertiesEtcdConnectionDetails.class);
            EtcdLockBackend backend = context.getBean(EtcdLockBackend.class);
            assertThat(backend.endpoints()).containsExactly("http://127.0.0.1:2379");
            assertThat(backend.namespace()).isEqualTo("/fencelock");
            assertThat(context.getBean(LockClient.class).backend()).isSameAs(backend);
        });
    }

    @Test
    void runShouldApplyPropertiesToTheClient() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "fencelock.lease-ttl=20s",
                        "fencelock.wait-timeout=3s",
                        "fencelock.max-lease-ttl=1m",
                        "fencelock.max-wait-timeout=30s",
                        "fencelock.max-waiters-per-resource=7",
                        "fencelock.max-resource-length=64",
                        "fencelock.hot-resources.size=4")
                .run((context) -> {
                    assertThat(context.getBean(LockClient.class).hotResourceRanks())
                            .isEqualTo(4);
                    LockClientSettings settings =
                            context.getBean(LockClient.class).settings();
                    assertThat(settings.defaultLeaseTtl()).hasSeconds(20);
                    assertThat(settings.defaultWaitTimeout()).hasSeconds(3);
                    assertThat(settings.maxLeaseTtl()).hasMinutes(1);
                    assertThat(settings.maxWaitTimeout()).hasSeconds(30);
                    assertThat(settings.maxWaitersPerResource()).isEqualTo(7);
                    assertThat(settings.maxResourceLength()).isEqualTo(64);
                });
    }

    @Test
    void runWithEtcdPropertiesShouldConfigureTheBackend() {
        this.runner
                .withPropertyValues(
                        "fencelock.namespace=/orders",
                        "fencelock.etcd.endpoints=http://127.0.0.2:2379,http://127.0.0.3:2379")
                .run((context) -> {
                    EtcdLockBackend backend = context.getBean(EtcdLockBackend.class);
                    assertThat(backend.endpoints()).containsExactly("http://127.0.0.2:2379", "http://127.0.0.3:2379");
                    assertThat(backend.namespace()).isEqualTo("/orders");
                });
    }

    @Test
    void runWithTlsShouldBuildTheEtcdClient() {
        this.runner
                .withPropertyValues(
                        "fencelock.etcd.endpoints=https://127.0.0.2:2379",
                        "fencelock.etcd.tls.enabled=true",
                        "fencelock.etcd.tls.authority=etcd.example")
                .run((context) -> assertThat(context).hasSingleBean(EtcdLockBackend.class));
    }

    @Test
    void connectionDetailsFromPropertiesShouldNeverShowThePassword() {
        FenceLockEtcdProperties etcd = new FenceLockEtcdProperties();
        etcd.setUsername("locker");
        etcd.setPassword("s3cret-value");
        assertThat(new PropertiesEtcdConnectionDetails(etcd).toString())
                .contains("locker")
                .doesNotContain("s3cret-value");
    }

    @Test
    void runWithHttpsEndpointButNoTlsShouldFailNamingBoth() {
        this.runner
                .withPropertyValues("fencelock.etcd.endpoints=https://10.0.0.1:2379")
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("fencelock.etcd.endpoints")
                        .hasMessageContaining("uses https://, but TLS is off")
                        .hasMessageContaining("fencelock.etcd.ssl.bundle"));
    }

    @Test
    void runWithTlsButHttpEndpointShouldFailNamingBoth() {
        this.runner
                .withPropertyValues("fencelock.etcd.endpoints=http://10.0.0.1:2379", "fencelock.etcd.tls.enabled=true")
                .run((context) -> assertThat(failure(context)).hasMessageContaining("uses http://, but TLS is on"));
    }

    @Test
    void runWithUnknownSslBundleShouldFailNamingThePropertyAndTheKnownBundles() {
        this.runner
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=https://10.0.0.1:2379",
                        "fencelock.etcd.ssl.bundle=etcd",
                        "spring.ssl.bundle.pem.other.truststore.certificate=file:"
                                + TestCertificates.create().caCertificate())
                .run((context) -> assertThat(failure(context))
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencelock.etcd.ssl.bundle")
                        .hasMessageContaining("No SSL bundle is named 'etcd' (known bundles: [other])")
                        .hasMessageContaining("spring.ssl.bundle.pem.etcd"));
    }

    @Test
    void runWithSslBundleAndTlsFilesShouldFailNamingBoth() {
        this.runner
                .withPropertyValues(
                        "fencelock.etcd.ssl.bundle=etcd", "fencelock.etcd.tls.ca-certificate=classpath:ca.pem")
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("fencelock.etcd.ssl.bundle")
                        .hasMessageContaining("fencelock.etcd.tls.*"));
    }

    @Test
    void runWithUnreadableCaCertificateShouldFailNamingTheProperty() {
        this.runner
                .withPropertyValues(
                        "fencelock.etcd.tls.enabled=true",
                        "fencelock.etcd.tls.ca-certificate=classpath:does-not-exist.pem")
                .run((context) ->
                        assertThat(failure(context)).hasMessageContaining("fencelock.etcd.tls.ca-certificate"));
    }

    @Test
    void runWithCertificateButNoPrivateKeyShouldFailNamingBoth() {
        this.runner
                .withPropertyValues("fencelock.etcd.tls.certificate=classpath:client.pem")
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("fencelock.etcd.tls.certificate")
                        .hasMessageContaining("fencelock.etcd.tls.private-key"));
    }

    @Test
    void runWhenDisabledShouldCreateNothing() {
        this.runner.withPropertyValues("fencelock.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(LockBackend.class);
            assertThat(context).doesNotHaveBean(LockClient.class);
            assertThat(context).doesNotHaveBean(DistributedLockAdvisor.class);
            assertThat(context).doesNotHaveBean(FenceLockProperties.class);
        });
    }

    @Test
    void runWithUserLockClientShouldBackOff() {
        LockClient userClient = LockClient.builder(new InMemoryLockBackend()).build();
        this.runner.withBean(LockClient.class, () -> userClient).run((context) -> {
            assertThat(context).getBean(LockClient.class).isSameAs(userClient);
            assertThat(context).doesNotHaveBean(LockBackend.class);
            assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
        });
    }

    @Test
    void runWithUserLockBackendShouldUseIt() {
        InMemoryLockBackend userBackend = new InMemoryLockBackend();
        this.runner.withBean(LockBackend.class, () -> userBackend).run((context) -> {
            assertThat(context).getBean(LockBackend.class).isSameAs(userBackend);
            assertThat(context).doesNotHaveBean(EtcdLockBackend.class);
            assertThat(context.getBean(LockClient.class).backend()).isSameAs(userBackend);
        });
    }

    @Test
    void runWithUserConnectionDetailsShouldPreferThemOverProperties() {
        EtcdConnectionDetails details = () -> List.of("http://127.0.0.4:2379");
        this.runner
                .withPropertyValues("fencelock.etcd.endpoints=http://127.0.0.2:2379")
                .withBean(EtcdConnectionDetails.class, () -> details)
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(PropertiesEtcdConnectionDetails.class);
                    assertThat(context.getBean(EtcdLockBackend.class).endpoints())
                            .containsExactly("http://127.0.0.4:2379");
                });
    }

    @Test
    void runWithInMemoryBackendShouldNotNeedTheEtcdClient() {
        this.runner
                .withClassLoader(new FilteredClassLoader(Client.class))
                .withPropertyValues("fencelock.backend=IN_MEMORY")
                .run((context) -> {
                    assertThat(context).hasSingleBean(InMemoryLockBackend.class);
                    assertThat(context).doesNotHaveBean(EtcdConnectionDetails.class);
                    try (LockLease lease =
                            context.getBean(LockClient.class).acquire(dev.fencelock.LockRequest.of("a"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void runWithEtcdBackendButNoEtcdModuleShouldFailClearly() {
        this.runner
                .withClassLoader(new FilteredClassLoader("dev.fencelock.etcd"))
                .run((context) -> {
                    assertThat(failure(context))
                            .isInstanceOf(LockBackendMissingException.class)
                            .hasMessageContaining("dev.fencelock:lock-etcd")
                            .hasMessageContaining("fencelock.backend=in-memory");
                });
    }

    @Test
    void runWithoutAspectJShouldStillCreateTheAdvisorAndAnAutoProxyCreator() {
        this.runner
                .withClassLoader(new FilteredClassLoader("org.aspectj"))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
                    assertThat(context).hasSingleBean(InfrastructureAdvisorAutoProxyCreator.class);
                });
    }

    @Test
    void advisorShouldBeAnInfrastructureBeanOrderedByProperty() {
        this.runner
                .withPropertyValues("fencelock.backend=in-memory", "fencelock.aspect.order=42")
                .run((context) -> {
                    String[] names = context.getBeanNamesForType(DistributedLockAdvisor.class);
                    assertThat(names).hasSize(1);
                    assertThat(context.getBeanFactory()
                                    .getBeanDefinition(names[0])
                                    .getRole())
                            .isEqualTo(BeanDefinition.ROLE_INFRASTRUCTURE);
                    assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                            .isEqualTo(42);
                });
    }

    @Test
    void adviceSettingsShouldBindFromRelaxedNamesAsOtherPropertiesDo() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "fencelock.aspect.releaseInBackground=true",
                        "fencelock.aspect.interrupt_on_lost=false")
                .run((context) -> {
                    DistributedLockInterceptor interceptor = context.getBean(DistributedLockInterceptor.class);
                    assertThat(ReflectionTestUtils.getField(interceptor, "releaseInBackground"))
                            .isEqualTo(true);
                    assertThat(ReflectionTestUtils.getField(interceptor, "interruptOnLost"))
                            .isEqualTo(false);
                });
    }

    @Test
    void adviceDefaultsShouldBeThoseThePropertiesDocument() {
        FenceLockProperties.Aspect documented = new FenceLockProperties().getAspect();
        this.runner.withPropertyValues("fencelock.backend=in-memory").run((context) -> {
            DistributedLockInterceptor interceptor = context.getBean(DistributedLockInterceptor.class);
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                    .isEqualTo(documented.getOrder())
                    .isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER);
            assertThat(ReflectionTestUtils.getField(interceptor, "releaseInBackground"))
                    .isEqualTo(documented.isReleaseInBackground());
            assertThat(ReflectionTestUtils.getField(interceptor, "interruptOnLost"))
                    .isEqualTo(documented.isInterruptOnLost());
        });
    }

    @Test
    void runWithEnableDistributedLocksAsWellShouldRegisterTheAdvisorOnce() {
        this.runner
                .withPropertyValues("fencelock.backend=in-memory")
                .withUserConfiguration(AnnotationSupportEnabledByHand.class)
                .run((context) -> {
                    assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
                    assertThat(context).hasSingleBean(DistributedLockInterceptor.class);
                    assertThat(context).hasSingleBean(LockKeyResolver.class);
                    assertThat(context).hasSingleBean(DistributedLockMethodCheck.class);
                });
    }

    @Test
    void runWhenDisabledShouldNotRegisterAnAutoProxyCreator() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceLockAutoConfiguration.class))
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME));
    }

    @Test
    void closingTheContextShouldReleaseLocksAndCloseTheClient() {
        LockLease[] held = new LockLease[1];
        LockClient[] client = new LockClient[1];
        this.runner.withPropertyValues("fencelock.backend=in-memory").run((context) -> {
            client[0] = context.getBean(LockClient.class);
            held[0] = client[0].acquire(dev.fencelock.LockRequest.of("shutdown"));
            assertThat(held[0].isValid()).isTrue();
        });
        assertThat(held[0].isValid()).isFalse();
        assertThatIllegalStateException()
                .isThrownBy(() -> client[0].acquire(dev.fencelock.LockRequest.of("shutdown")))
                .withMessageContaining("closed");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "fencelock.lease-ttl          | -5s                 | fencelock.lease-ttl",
                "fencelock.lease-ttl          | 500ms               | fencelock.lease-ttl",
                "fencelock.lease-ttl          | 20m                 | fencelock.max-lease-ttl",
                "fencelock.wait-timeout       | -1s                 | fencelock.wait-timeout",
                "fencelock.wait-timeout       | 10m                 | fencelock.max-wait-timeout",
                "fencelock.max-lease-ttl      | -1s                 | fencelock.max-lease-ttl",
                "fencelock.max-wait-timeout   | -1s                 | fencelock.max-wait-timeout",
                "fencelock.max-waiters-per-resource | 0             | fencelock.max-waiters-per-resource",
                "fencelock.max-resource-length | 0                  | fencelock.max-resource-length",
                "fencelock.namespace          | locks               | fencelock.namespace",
                "fencelock.hot-resources.size | -1                  | fencelock.hot-resources.size",
                "fencelock.hot-resources.size | 1001                | fencelock.hot-resources.size",
                "fencelock.hot-resources.half-life | 0s            | fencelock.hot-resources.half-life",
                "fencelock.etcd.endpoints     | ''                  | fencelock.etcd.endpoints",
                "fencelock.etcd.endpoints     | localhost:2379      | fencelock.etcd.endpoints[0]",
                "fencelock.etcd.endpoints     | http://:2379        | fencelock.etcd.endpoints[0]",
                "fencelock.etcd.endpoints     | http://a b:2379     | fencelock.etcd.endpoints[0]",
                "fencelock.etcd.endpoints     | http://etcd         | fencelock.etcd.endpoints[0]",
                "fencelock.etcd.connect-timeout | 0s                | fencelock.etcd.connect-timeout",
                "fencelock.etcd.request-timeout | -1s               | fencelock.etcd.request-timeout",
                "fencelock.etcd.username      | root                | fencelock.etcd.password",
            })
    void runWithInvalidPropertyShouldFailNamingTheProperty(String property, String value, String named) {
        this.runner
                .withPropertyValues(property + "=" + value)
                .run((context) -> assertThat(failure(context))
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining(named)
                        .hasMessageContaining(property));
    }

    private static Throwable failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
    }

    /** A module of the application's that turns the annotation on itself, as it would without Boot. */
    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocks
    static class AnnotationSupportEnabledByHand {}
}
