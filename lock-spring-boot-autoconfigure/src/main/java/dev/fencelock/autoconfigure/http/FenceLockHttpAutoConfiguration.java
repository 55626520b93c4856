package dev.fencelock.autoconfigure.http;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.http.FenceSigningKeys;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * The keys that sign and check fence headers ({@code fencelock.http.signing.*}), read and checked
 * at startup, and masked in the actuator's {@code env} and {@code configprops} output even where
 * an application shows values. The HTTP clients ({@link FenceLockHttpClientAutoConfiguration}) and
 * the fenced endpoints ({@link FenceLockHttpServerAutoConfiguration}) build on them.
 */
@AutoConfiguration(after = FenceLockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.http.HttpRequest")
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties({FenceLockProperties.class, FenceLockHttpProperties.class})
public final class FenceLockHttpAutoConfiguration {

    private static final String KEYS = "fencelock.http.signing.keys";

    @Bean
    @ConditionalOnMissingBean
    FenceSigningKeys fenceSigningKeys(FenceLockHttpProperties properties) {
        FenceLockHttpProperties.Signing signing = properties.getSigning();
        Map<String, byte[]> keys = new LinkedHashMap<>();
        signing.getKeys().forEach((id, secret) -> {
            try {
                keys.put(id, Base64.getDecoder().decode(secret.strip()));
            } catch (IllegalArgumentException ex) {
                // The message would quote the secret's characters; name the key only.
                throw new IllegalStateException(
                        KEYS + "." + id + " is not Base64 (for example: openssl rand -base64 32)");
            }
        });
        try {
            String current = signing.getCurrentKey();
            return new FenceSigningKeys(keys, StringUtils.hasText(current) ? current.strip() : null);
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    "Invalid " + KEYS + " or fencelock.http.signing.current-key: " + ex.getMessage(), ex);
        }
    }

    /** Whether {@code key} is a signing key's property, as a property file, YAML or an environment variable spells it. */
    static boolean isSigningKey(String key) {
        String canonical = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
        return canonical.equals(KEYS) || canonical.startsWith(KEYS + ".") || canonical.startsWith(KEYS + "[");
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SanitizingFunction.class)
    static class SigningKeysSanitizing {

        @Bean
        @ConditionalOnMissingBean(name = "fenceLockSigningKeysSanitizingFunction")
        SanitizingFunction fenceLockSigningKeysSanitizingFunction() {
            return SanitizingFunction.sanitizeValue().ifKeyMatches(FenceLockHttpAutoConfiguration::isSigningKey);
        }
    }
}
