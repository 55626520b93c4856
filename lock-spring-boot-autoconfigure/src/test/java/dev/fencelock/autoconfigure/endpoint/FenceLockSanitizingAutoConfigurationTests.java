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
                    "fencelock.etcd.password=" + SECRET);

    @Test
    void runWithValuesShownShouldStillMaskTheEtcdPasswordInEnvAndConfigprops() {
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
        assertThat(FenceLockSanitizingAutoConfiguration.isEtcdPassword("fencelock.etcd.password"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isEtcdPassword("FENCELOCK_ETCD_PASSWORD"))
                .isTrue();
        assertThat(FenceLockSanitizingAutoConfiguration.isEtcdPassword("fencelock.etcd.username"))
                .isFalse();
    }
}
