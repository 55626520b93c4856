package dev.fencelock.autoconfigure.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.client.match.MockRestRequestMatchers.header;
import static org.springframework.test.web.client.match.MockRestRequestMatchers.headerDoesNotExist;
import static org.springframework.test.web.client.match.MockRestRequestMatchers.requestTo;
import static org.springframework.test.web.client.response.MockRestResponseCreators.withSuccess;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.http.FenceHeader;
import dev.fencelock.http.FenceHeaderClientInterceptor;
import dev.fencelock.http.FenceHeaderExchangeFilter;
import dev.fencelock.http.FenceHeaderSigner;
import dev.fencelock.http.FenceHeaderVerifier;
import dev.fencelock.http.FenceSigningKeys;
import dev.fencelock.http.FencedEndpointInterceptor;
import dev.fencelock.http.FencedEndpointWebFilter;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.client.MockRestServiceServer;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.servlet.DispatcherServlet;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

class FenceLockHttpAutoConfigurationTests {

    /** Base64 of a 32-byte secret; the tests look for this text in the actuator's output. */
    private static final String SECRET =
            Base64.getEncoder().encodeToString("a secret of thirty-two bytes....".getBytes());

    private static final Fence ORDER = new Fence("order:42", 1043, null);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpClientAutoConfiguration.class,
                    FenceLockHttpServerAutoConfiguration.class,
                    RestClientAutoConfiguration.class,
                    RestTemplateAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.scope=etcd-a",
                    "fencelock.http.signing.keys.k1=" + SECRET,
                    "fencelock.http.signing.current-key=k1");

    @Test
    void runWithACurrentKeyShouldSendTheThreadsFencesThroughRestClientsBuiltByBoot() {
        this.runner.run((context) -> {
            RestClient.Builder builder = context.getBean(RestClient.Builder.class);
            MockRestServiceServer server = MockRestServiceServer.bindTo(builder).build();
            RestClient client = builder.build();
            server.expect(requestTo("http://inventory/unfenced"))
                    .andExpect(headerDoesNotExist(FenceHeader.NAME))
                    .andRespond(withSuccess());
            AtomicReference<String> sent = new AtomicReference<>();
            server.expect(requestTo("http://inventory/fenced"))
                    .andExpect(request -> sent.set(request.getHeaders().getFirst(FenceHeader.NAME)))
                    .andRespond(withSuccess());

            client.get().uri("http://inventory/unfenced").retrieve().toBodilessEntity();
            try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                client.get().uri("http://inventory/fenced").retrieve().toBodilessEntity();
            }

            server.verify();
            FenceHeaderVerifier.Verified verified = verifier(context).verify(sent.get());
            assertThat(verified.fences()).containsExactly(ORDER);
            assertThat(verified.scope()).isEqualTo("etcd-a");
        });
    }

    @Test
    void runShouldAddTheInterceptorToRestTemplatesBuiltByBoot() {
        this.runner.run((context) -> {
            RestTemplate template = context.getBean(RestTemplateBuilder.class).build();
            assertThat(template.getInterceptors()).contains(context.getBean(FenceHeaderClientInterceptor.class));
            MockRestServiceServer server =
                    MockRestServiceServer.bindTo(template).build();
            server.expect(requestTo("http://inventory/fenced"))
                    .andExpect(header(FenceHeader.NAME, Matchers.startsWith("v=1; kid=k1; ")))
                    .andRespond(withSuccess());
            try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                template.getForEntity("http://inventory/fenced", String.class);
            }
            server.verify();
        });
    }

    @Test
    void runShouldSendFencesThroughWebClientsFromTheSubscribingThreadOrTheReactorContext() {
        this.runner.run((context) -> {
            AtomicReference<ClientRequest> sent = new AtomicReference<>();
            WebClient.Builder builder = WebClient.builder().exchangeFunction((request) -> {
                sent.set(request);
                return Mono.just(ClientResponse.create(HttpStatus.OK).build());
            });
            context.getBean(WebClientCustomizer.class).customize(builder);
            WebClient client = builder.build();
            FenceHeaderVerifier verifier = verifier(context);

            try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                client.get()
                        .uri("http://inventory/a")
                        .retrieve()
                        .toBodilessEntity()
                        .block();
            }
            assertThat(verifier.verify(sent.get().headers().getFirst(FenceHeader.NAME))
                            .fences())
                    .containsExactly(ORDER);

            // Subscribed on another thread: only the Reactor context can carry the fences there.
            client.get()
                    .uri("http://inventory/b")
                    .retrieve()
                    .toBodilessEntity()
                    .subscribeOn(Schedulers.boundedElastic())
                    .contextWrite(Context.of(FenceHeaderExchangeFilter.CONTEXT_KEY, List.of(ORDER)))
                    .block();
            assertThat(verifier.verify(sent.get().headers().getFirst(FenceHeader.NAME))
                            .fences())
                    .containsExactly(ORDER);
            try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                client.get()
                        .uri("http://inventory/c")
                        .retrieve()
                        .toBodilessEntity()
                        .subscribeOn(Schedulers.boundedElastic())
                        .block();
            }
            assertThat(sent.get().headers().containsHeader(FenceHeader.NAME)).isFalse();
        });
    }

    @Test
    void runWithHostsShouldSendFencesToThoseHostsOnly() {
        this.runner.withPropertyValues("fencelock.http.client.hosts=Inventory").run((context) -> {
            RestClient.Builder builder = context.getBean(RestClient.Builder.class);
            MockRestServiceServer server = MockRestServiceServer.bindTo(builder).build();
            server.expect(requestTo("http://inventory/x"))
                    .andExpect(header(FenceHeader.NAME, Matchers.startsWith("v=1;")))
                    .andRespond(withSuccess());
            server.expect(requestTo("http://payments.example/x"))
                    .andExpect(headerDoesNotExist(FenceHeader.NAME))
                    .andRespond(withSuccess());
            RestClient client = builder.build();
            try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                client.get().uri("http://inventory/x").retrieve().toBodilessEntity();
                client.get().uri("http://payments.example/x").retrieve().toBodilessEntity();
            }
            server.verify();
        });
    }

    @Test
    void runWithClientDisabledShouldNotCustomizeClients() {
        this.runner.withPropertyValues("fencelock.http.client.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(FenceHeaderClientInterceptor.class);
            assertThat(context).doesNotHaveBean(RestClientCustomizer.class);
            assertThat(context).doesNotHaveBean(WebClientCustomizer.class);
            assertThat(context).hasSingleBean(FenceSigningKeys.class);
        });
    }

    @Test
    void runWithoutACurrentKeyShouldSendNothingButStillKnowTheKeys() {
        this.runner.withPropertyValues("fencelock.http.signing.current-key=").run((context) -> {
            assertThat(context).doesNotHaveBean(FenceHeaderClientInterceptor.class);
            assertThat(context.getBean(FenceSigningKeys.class).keyIds()).containsExactly("k1");
        });
    }

    @Test
    void runWithoutWebFluxShouldStillCustomizeRestClients() {
        this.runner
                .withClassLoader(new FilteredClassLoader(WebClientCustomizer.class))
                .run((context) -> {
                    assertThat(context).hasSingleBean(RestClientCustomizer.class);
                    assertThat(context).doesNotHaveBean(FenceHeaderExchangeFilter.class);
                });
    }

    @Test
    void runWithAKeyThatIsNotBase64ShouldFailNamingTheKeyButNotItsValue() {
        this.runner
                .withPropertyValues("fencelock.http.signing.keys.k2=not base64 %%")
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("fencelock.http.signing.keys.k2 is not Base64")
                            .hasMessageNotContaining("%%");
                });
    }

    @Test
    void runWithACurrentKeyThatIsNotConfiguredShouldFail() {
        this.runner
                .withPropertyValues("fencelock.http.signing.current-key=k9")
                .run((context) -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("current signing key 'k9' is not one of the keys [k1]"));
    }

    @Test
    void runWithValuesShownShouldStillMaskTheSigningKeysInEnvAndConfigprops() {
        this.runner.run((context) -> {
            List<SanitizingFunction> functions = context.getBeanProvider(SanitizingFunction.class)
                    .orderedStream()
                    .toList();
            EnvironmentEndpoint env = new EnvironmentEndpoint(context.getEnvironment(), functions, Show.ALWAYS);
            ConfigurationPropertiesReportEndpoint configprops =
                    new ConfigurationPropertiesReportEndpoint(functions, Show.ALWAYS);
            configprops.setApplicationContext(context);

            assertThat(env.environmentEntry("fencelock.http.signing.keys.k1")
                            .getProperty()
                            .getValue())
                    .isEqualTo("******");
            assertThat(env.environmentEntry("fencelock.http.signing.current-key")
                            .getProperty()
                            .getValue())
                    .isEqualTo("k1");
            String report =
                    configprops.configurationPropertiesWithPrefix("fencelock.http").getContexts().values().stream()
                            .flatMap(descriptor -> descriptor.getBeans().values().stream())
                            .map(bean -> String.valueOf(bean.getProperties()))
                            .toList()
                            .toString();
            assertThat(report).contains("k1").doesNotContain(SECRET);
        });
    }

    @Test
    void signingKeyPropertiesAreRecognisedAsPropertiesYamlAndEnvironmentVariablesSpellThem() {
        assertThat(FenceLockHttpAutoConfiguration.isSigningKey("fencelock.http.signing.keys.k1"))
                .isTrue();
        assertThat(FenceLockHttpAutoConfiguration.isSigningKey("FENCELOCK_HTTP_SIGNING_KEYS_K1"))
                .isTrue();
        assertThat(FenceLockHttpAutoConfiguration.isSigningKey("fencelock.http.signing.keys"))
                .isTrue();
        assertThat(FenceLockHttpAutoConfiguration.isSigningKey("fencelock.http.signing.current-key"))
                .isFalse();
    }

    @Test
    void runInAServletApplicationShouldRegisterTheFencedEndpointInterceptor() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpServerAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    assertThat(context).hasSingleBean(FencedEndpointInterceptor.class);
                    assertThat(context).hasSingleBean(FenceRefusalMetrics.class);
                });
    }

    @Test
    void runOutsideAServletApplicationOrWithTheServerDisabledShouldNotRegisterIt() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(FencedEndpointInterceptor.class));
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpServerAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory", "fencelock.http.server.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FencedEndpointInterceptor.class));
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpServerAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .withClassLoader(new FilteredClassLoader(DispatcherServlet.class.getPackageName()))
                .run((context) -> assertThat(context).doesNotHaveBean(FencedEndpointInterceptor.class));
    }

    @Test
    void runInAReactiveApplicationShouldRegisterTheFencedEndpointWebFilter() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpServerAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    assertThat(context).hasSingleBean(FencedEndpointWebFilter.class);
                    assertThat(context).doesNotHaveBean(FencedEndpointInterceptor.class);
                    assertThat(context).hasSingleBean(FenceRefusalMetrics.class);
                });
    }

    @Test
    void runWithUnsignedClientHeadersShouldSendThemOnlyWithoutACurrentKey() {
        this.runner
                .withPropertyValues("fencelock.http.signing.current-key=", "fencelock.http.client.unsigned=true")
                .run((context) -> {
                    String header;
                    try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
                        header = context.getBean(FenceHeaderSigner.class).headerForCurrentThread();
                    }
                    assertThat(header)
                            .startsWith("v=1; exp=")
                            .endsWith("; scope=ZXRjZC1h; fences=b3JkZXI6NDI:1043")
                            .doesNotContain("kid=")
                            .doesNotContain("sig=");
                });
        this.runner
                .withPropertyValues("fencelock.http.client.unsigned=true")
                .run((context) -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("fencelock.http.client.unsigned=true and")
                        .hasMessageContaining("are both set"));
    }

    @Test
    void runWithTrustedSubjectsButTrustBySignatureShouldFailNamingBothProperties() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpServerAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory", "fencelock.http.server.trusted-subjects=CN=orders")
                .run((context) -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("fencelock.http.server.trusted-subjects is set")
                        .hasMessageContaining("fencelock.http.server.trust is 'signature'"));
    }

    /** What a receiving service with the same key and scope makes of a header. */
    private static FenceHeaderVerifier verifier(ApplicationContext context) {
        return new FenceHeaderVerifier(
                context.getBean(FenceSigningKeys.class), Set.of("etcd-a"), Duration.ZERO, Clock.systemUTC());
    }
}
