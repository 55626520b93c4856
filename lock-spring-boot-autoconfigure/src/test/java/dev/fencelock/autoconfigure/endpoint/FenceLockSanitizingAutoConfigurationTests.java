package dev.fencelock.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockSanitizingAutoConfigurationTests {

    private static final String SECRET = "etcd-Pa55word";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockAutoConfiguration.class, FenceLockSanitizingAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.etcd.username=locker",
                    "fencelock.etcd.password=" + SECRET,
                    "fencelock.zookeeper.password=" + SECRET + "-zk",
                    "fencelock.zookeeper.tls.trust-store-password=" + SECRET + "-trust",
                    "fencelock.zookeeper.tls.key-store-password=" + SECRET + "-key");

    @Test
    void runWithValuesShownShouldStillMaskThePasswordsInEnvAndConfigprops() {
        this.runner.run((context) -> {
            // The endpoints as Boot builds them for show-values=always: everything unsanitized is shown.
            List<SanitizingFunction> functions = context.getBeanProvider(SanitizingFunction.class)
                    .orderedStream()
                    .toList();
            EnvironmentEndpoint env = new EnvironmentEndpoint(context.getEnvironment(), functions, Show.ALWAYS);
            ConfigurationPropertiesReportEndpoint configprops =
                    new ConfigurationPropertiesReportEndpoint(functions, Show.ALWAYS);
            configprops.setApplicationContext(context);

            assertThat(env.environmentEntry("fencelock.etcd.password")
                            .getProperty()
                            .getValue())
                    .isEqualTo("******");
            for (String secret : List.of(
                    "fencelock.zookeeper.password",
                    "fencelock.zookeeper.tls.trust-store-password",
                    "fencelock.zookeeper.tls.key-store-password")) {
                assertThat(env.environmentEntry(secret).getProperty().getValue())
                        .as(secret)
                        .isEqualTo("******");
            }
            assertThat(env.environmentEntry("fencelock.etcd.username")
                            .getProperty()
                            .getValue())
                    .isEqualTo("locker");
            String report = configprops.configurationPropertiesWithPrefix("fencelock").getContexts().values().stream()
                    .flatMap(descriptor -> descriptor.getBeans().values().stream())
                    .map(bean -> String.valueOf(bean.getProperties()))
                    .toList()
                    .toString();
            assertThat(report).contains("locker").doesNotContain(SECRET);
        });
    }

    @Test
    void runWithoutActuatorShouldBackOff() {
        this.runner
                .withClassLoader(new FilteredClassLoader(SanitizingFunction.class))
                .run((context) -> assertThat(context).doesNotHaveBean(SanitizingFunction.class));
    }

    @Test
    void passwordKeysAreRecognisedAsPropertiesYamlAndEnvironmentVariablesSpellThem() {
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("fencelock.etcd.password"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("FENCELOCK_ETCD_PASSWORD"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("fencelock.zookeeper.tls.key-store-password"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("FENCELOCK_ZOOKEEPER_TLS_TRUSTSTOREPASSWORD"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("fencelock.etcd.username"))
                .isFalse();
        assertThat(FenceLockSanitizingAutoConfiguration.isSecret("fencelock.zookeeper.tls.key-store"))
                .isFalse();
    }
}
