package dev.fencelock.autoconfigure.endpoint;

import java.util.Locale;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Masks FenceLock's secrets ({@code fencelock.etcd.password}, {@code fencelock.zookeeper.password}
 * and the ZooKeeper TLS store passwords) in the actuator's {@code env} and {@code configprops}
 * output even where an application shows values ({@code show-values=always}): Spring Boot then
 * shows every value it is not told to sanitize.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class FenceLockSanitizingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fenceLockSanitizingFunction")
    SanitizingFunction fenceLockSanitizingFunction() {
        return SanitizingFunction.sanitizeValue().ifKeyMatches(FenceLockSanitizingAutoConfiguration::isSecret);
    }

    /** The secrets' keys, with their dashes left out. */
    private static final Set<String> SECRETS = Set.of(
            "fencelock.etcd.password",
            "fencelock.zookeeper.password",
            "fencelock.zookeeper.tls.truststorepassword",
            "fencelock.zookeeper.tls.keystorepassword");

    /** Whether {@code key} is a secret's, as a property file, YAML or an environment variable spells it. */
    static boolean isSecret(String key) {
        String canonical = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
        return SECRETS.contains(canonical);
    }
}
