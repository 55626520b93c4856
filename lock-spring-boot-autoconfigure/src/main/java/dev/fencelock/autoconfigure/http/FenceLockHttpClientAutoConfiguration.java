package dev.fencelock.autoconfigure.http;

import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.http.FenceHeaderClientInterceptor;
import dev.fencelock.http.FenceHeaderExchangeFilter;
import dev.fencelock.http.FenceHeaderSigner;
import dev.fencelock.http.FenceSigningKeys;
import java.time.Clock;
import java.util.Set;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.util.StringUtils;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

/**
 * Adds the current thread's fences, signed, to every request of the {@code RestClient}, {@code
 * RestTemplate} and {@code WebClient} that the application builds from Boot's builders: on when a
 * current signing key is set, off with {@code fencelock.http.client.enabled=false}. With {@code
 * fencelock.http.client.unsigned=true} and no current key, the fences go unsigned, for services that
 * trust this one by its client certificate.
 */
@AutoConfiguration(after = FenceLockHttpAutoConfiguration.class)
@ConditionalOnClass(ClientHttpRequestInterceptor.class)
@ConditionalOnBean(FenceSigningKeys.class)
@ConditionalOnProperty(prefix = "fencelock.http.client", name = "enabled", matchIfMissing = true)
@Conditional(FenceLockHttpClientAutoConfiguration.OnFenceHeaderSource.class)
public final class FenceLockHttpClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceHeaderSigner fenceHeaderSigner(
            FenceSigningKeys keys, FenceLockProperties fenceLock, FenceLockHttpProperties http) {
        String scope = fenceLock.getFencing().getScope();
        if (http.getClient().isUnsigned()) {
            if (keys.currentKeyId() != null) {
                throw new IllegalStateException("fencelock.http.client.unsigned=true and"
                        + " fencelock.http.signing.current-key are both set: send signed headers (remove"
                        + " unsigned) or unsigned ones to services that trust this one by its client certificate"
                        + " (remove current-key), not both");
            }
            return FenceHeaderSigner.unsigned(scope, http.getSigning().getValidity(), Clock.systemUTC());
        }
        return new FenceHeaderSigner(keys, scope, http.getSigning().getValidity(), Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    FenceHeaderClientInterceptor fenceHeaderClientInterceptor(FenceHeaderSigner signer, FenceLockHttpProperties http) {
        return new FenceHeaderClientInterceptor(
                signer, Set.copyOf(http.getClient().getHosts()));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    static class RestClients {

        @Bean
        RestClientCustomizer fenceLockRestClientCustomizer(FenceHeaderClientInterceptor interceptor) {
            return (builder) -> builder.requestInterceptor(interceptor);
        }

        @Bean
        RestTemplateCustomizer fenceLockRestTemplateCustomizer(FenceHeaderClientInterceptor interceptor) {
            return (restTemplate) -> restTemplate.getInterceptors().add(interceptor);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClientCustomizer.class, ExchangeFilterFunction.class})
    static class WebClients {

        @Bean
        @ConditionalOnMissingBean
        FenceHeaderExchangeFilter fenceHeaderExchangeFilter(FenceHeaderSigner signer, FenceLockHttpProperties http) {
            return new FenceHeaderExchangeFilter(
                    signer, Set.copyOf(http.getClient().getHosts()));
        }

        @Bean
        WebClientCustomizer fenceLockWebClientCustomizer(FenceHeaderExchangeFilter filter) {
            return (builder) -> builder.filter(filter);
        }
    }

    /**
     * A current signing key is set (not blank), or unsigned headers are asked for: without either
     * there is no header to send.
     */
    static final class OnFenceHeaderSource extends SpringBootCondition {

        private static final String CURRENT_KEY = "fencelock.http.signing.current-key";

        private static final String UNSIGNED = "fencelock.http.client.unsigned";

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConditionMessage.Builder message = ConditionMessage.forCondition("FenceLock fence header");
            if (StringUtils.hasText(context.getEnvironment().getProperty(CURRENT_KEY))) {
                return ConditionOutcome.match(message.found("property").items(CURRENT_KEY));
            }
            if (context.getEnvironment().getProperty(UNSIGNED, Boolean.class, false)) {
                return ConditionOutcome.match(message.found("property").items(UNSIGNED + "=true"));
            }
            return ConditionOutcome.noMatch(message.didNotFind("property").items(CURRENT_KEY, UNSIGNED + "=true"));
        }
    }
}
