package dev.fencelock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports {@link LockBackendMissingException} with where {@code fencelock.backend} was set, or
 * that it is the default: an application that never chose etcd should learn that it got it.
 */
class LockBackendMissingFailureAnalyzer extends AbstractFailureAnalyzer<LockBackendMissingException> {

    private static final ConfigurationPropertyName BACKEND = ConfigurationPropertyName.of("fencelock.backend");

    private final @Nullable Environment environment;

    LockBackendMissingFailureAnalyzer(@Nullable Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockBackendMissingException cause) {
        String description = "fencelock.backend is '" + cause.getBackend() + "' (" + source() + "), but the "
                + cause.getBackend() + " backend (" + cause.getModule() + ") is not on the classpath.";
        return new FailureAnalysis(description, LockBackendMissingException.action(cause.getModule()), cause);
    }

    private String source() {
        ConfigurationProperty property = backendProperty();
        if (property == null) {
            return "the default";
        }
        return (property.getOrigin() != null) ? "set in '" + property.getOrigin() + "'" : "set";
    }

    private @Nullable ConfigurationProperty backendProperty() {
        if (this.environment == null) {
            return null;
        }
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(BACKEND);
            if (property != null) {
                return property;
            }
        }
        return null;
    }
}
