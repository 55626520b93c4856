package dev.fencelock.autoconfigure.endpoint;

import java.util.Locale;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Masks {@code fencelock.etcd.password} in the actuator's {@code env} and {@code configprops}
 * output even where an application shows values ({@code show-values=always}): Spring Boot then
 * shows every value it is not told to sanitize.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class FenceLockSanitizingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fenceLockSanitizingFunction")
    SanitizingFunction fenceLockSanitizingFunction() {
        return SanitizingFunction.sanitizeValue().ifKeyMatches(FenceLockSanitizingAutoConfiguration::isEtcdPassword);
    }

    /** The password's key as a property file, YAML or an environment variable spells it. */
    static boolean isEtcdPassword(String key) {
        String canonical = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
        return canonical.equals("fencelock.etcd.password");
    }
}
