package dev.fencelock.autoconfigure.http;

import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.http.FenceHeaderAuditLog;
import dev.fencelock.http.FenceHeaderListener;
import dev.fencelock.http.FenceHeaderVerifier;
import dev.fencelock.http.FenceSigningKeys;
import dev.fencelock.http.FencedEndpointExceptionResolver;
import dev.fencelock.http.FencedEndpointInterceptor;
import dev.fencelock.http.FencedEndpointWebFilter;
import dev.fencelock.http.MutualTlsTrust;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.WebFilter;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Fenced endpoints in a Spring MVC or WebFlux application: handlers marked {@code @FencedEndpoint},
 * or matched by {@code fencelock.http.server.paths} and {@code optional-paths}, run under the fences
 * of a trusted {@code FenceLock-Fence} header (signed, or with {@code trust=mutual-tls} unsigned from
 * a caller with a client certificate); a stale one is answered with 409 unless the application maps
 * the refusal itself. Refusals are audited, and counted when Micrometer is there.
 */
@AutoConfiguration(after = FenceLockHttpAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnBean(FenceSigningKeys.class)
@ConditionalOnProperty(prefix = "fencelock.http.server", name = "enabled", matchIfMissing = true)
public final class FenceLockHttpServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceHeaderVerifier fenceHeaderVerifier(
            FenceSigningKeys keys, FenceLockProperties fenceLock, FenceLockHttpProperties http) {
        FenceLockHttpProperties.Server server = http.getServer();
        Set<String> scopes = new LinkedHashSet<>();
        scopes.add(Objects.requireNonNullElse(fenceLock.getFencing().getScope(), ""));
        scopes.addAll(server.getAcceptedScopes());
        return new FenceHeaderVerifier(keys, scopes, server.getClockSkew(), Clock.systemUTC(), mutualTls(server));
    }

    /** Trust by client certificates when asked for; subjects without it are a mistake worth stopping for. */
    private static @Nullable MutualTlsTrust mutualTls(FenceLockHttpProperties.Server server) {
        if (server.getTrust() != FenceLockHttpProperties.Trust.MUTUAL_TLS) {
            if (!server.getTrustedSubjects().isEmpty()) {
                throw new IllegalStateException("fencelock.http.server.trusted-subjects is set, but"
                        + " fencelock.http.server.trust is 'signature', which never reads client certificates:"
                        + " set trust=mutual-tls, or remove the subjects");
            }
            return null;
        }
        try {
            return new MutualTlsTrust(server.getTrustedSubjects());
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException("Invalid fencelock.http.server.trusted-subjects: " + ex.getMessage(), ex);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    FenceHeaderAuditLog fenceHeaderAuditLog() {
        return new FenceHeaderAuditLog();
    }

    private static List<PathPattern> patterns(List<String> paths) {
        return paths.stream().map(PathPatternParser.defaultInstance::parse).toList();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({HandlerInterceptor.class, WebMvcConfigurer.class})
    static class Servlet {

        @Bean
        @ConditionalOnMissingBean
        FencedEndpointInterceptor fencedEndpointInterceptor(
                FenceHeaderVerifier verifier,
                FenceLockHttpProperties http,
                ObjectProvider<FenceHeaderListener> listeners) {
            return new FencedEndpointInterceptor(
                    verifier,
                    patterns(http.getServer().getPaths()),
                    patterns(http.getServer().getOptionalPaths()),
                    listeners.orderedStream().toList());
        }

        @Bean
        WebMvcConfigurer fenceLockWebMvcConfigurer(FencedEndpointInterceptor interceptor) {
            return new WebMvcConfigurer() {
                @Override
                public void addInterceptors(InterceptorRegistry registry) {
                    registry.addInterceptor(interceptor);
                }
            };
        }

        @Bean
        @ConditionalOnMissingBean
        FencedEndpointExceptionResolver fencedEndpointExceptionResolver() {
            return new FencedEndpointExceptionResolver();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass({WebFilter.class, RequestMappingHandlerMapping.class})
    static class Reactive {

        @Bean
        @ConditionalOnMissingBean
        FencedEndpointWebFilter fencedEndpointWebFilter(
                FenceHeaderVerifier verifier,
                FenceLockHttpProperties http,
                ObjectProvider<FenceHeaderListener> listeners,
                ObjectProvider<RequestMappingHandlerMapping> handlerMappings) {
            return new FencedEndpointWebFilter(
                    verifier,
                    patterns(http.getServer().getPaths()),
                    patterns(http.getServer().getOptionalPaths()),
                    listeners.orderedStream().toList(),
                    () -> handlerMappings.orderedStream().toList());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class RefusalMetrics {

        @Bean
        FenceRefusalMetrics fenceRefusalMetrics(ObjectProvider<MeterRegistry> registry) {
            return new FenceRefusalMetrics(registry);
        }
    }
}
