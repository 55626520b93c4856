package dev.fencelock.http;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.annotation.FencedEndpoint;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The WebFlux counterpart of {@link FencedEndpointInterceptor}: opens the caller's fences for a
 * request to a fenced endpoint, one whose handler method (or its controller) is marked {@link
 * FencedEndpoint @FencedEndpoint}, or whose path matches {@code fencelock.http.server.paths}
 * (fence required) or {@code optional-paths}. The header is checked by the same {@link
 * FenceHeaderVerifier}, and refusals get the same answers, audit lines and counts.
 *
 * <p>The fences of a trusted header go into the Reactor context under {@value #CONTEXT_KEY}, the
 * key of {@code FencingContextAccessor}. With Reactor's automatic context propagation on, every
 * operator of the handler's chain, on whichever thread it runs, sees them in {@link
 * FencingContext}, so a blocking write the handler moves to another scheduler presents them to
 * the database. Without it, the fences stay in the Reactor context and no thread sees them.
 *
 * <p>A write the database refused ({@link FencingTokenRejectedException}) that no exception
 * handler of the application answered is answered here with 409 and audited. The handler method
 * is found through the application's {@link RequestMappingHandlerMapping}s, looked up before the
 * dispatcher looks it up again, and only while some handler method is marked at all.
 */
public final class FencedEndpointWebFilter implements WebFilter, Ordered {

    /** The Reactor context key of the fences: {@code FencingContextAccessor}'s key. */
    public static final String CONTEXT_KEY = FenceHeaderExchangeFilter.CONTEXT_KEY;

    /** Set on an exchange to a fenced endpoint: the fences opened for it (empty when it has none). */
    public static final String FENCES_ATTRIBUTE = FencedEndpointWebFilter.class.getName() + ".fences";

    /**
     * After security filters (which run at {@code -100}, and name the principal the audit line
     * shows), before the application's own filters by default.
     */
    public static final int ORDER = 0;

    private enum Fencing {
        NONE,
        REQUIRED,
        OPTIONAL
    }

    private final FenceHeaderVerifier verifier;

    private final List<PathPattern> requiredPaths;

    private final List<PathPattern> optionalPaths;

    private final List<FenceHeaderListener> listeners;

    private final Supplier<List<RequestMappingHandlerMapping>> handlerMappings;

    private volatile @Nullable List<RequestMappingHandlerMapping> annotated;

    /**
     * @param handlerMappings the handler mappings that find annotated handler methods, read at the
     *     first request (they are complete only once the application context is)
     */
    public FencedEndpointWebFilter(
            FenceHeaderVerifier verifier,
            List<PathPattern> requiredPaths,
            List<PathPattern> optionalPaths,
            List<FenceHeaderListener> listeners,
            Supplier<List<RequestMappingHandlerMapping>> handlerMappings) {
        this.verifier = verifier;
        this.requiredPaths = List.copyOf(requiredPaths);
        this.optionalPaths = List.copyOf(optionalPaths);
        this.listeners = List.copyOf(listeners);
        this.handlerMappings = handlerMappings;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return fencing(exchange)
                .flatMap(fencing -> (fencing == Fencing.NONE)
                        ? chain.filter(exchange)
                        : fenced(exchange, chain, fencing == Fencing.OPTIONAL));
    }

    private Mono<Void> fenced(ServerWebExchange exchange, WebFilterChain chain, boolean optional) {
        ServerHttpRequest request = exchange.getRequest();
        X509Certificate[] chainOfCertificates = clientCertificates(request);
        FenceHeaderVerifier.Verified verified;
        try {
            verified = this.verifier.check(
                    request.getHeaders().getOrEmpty(FenceHeader.NAME), optional, chainOfCertificates);
        } catch (FenceHeaderRefusedException refusal) {
            return caller(exchange, chainOfCertificates).flatMap(caller -> {
                this.listeners.forEach(listener -> listener.refused(caller, method(request), path(request), refusal));
                return write(exchange.getResponse(), FenceProblems.refused(refusal));
            });
        }
        if (verified == null) {
            exchange.getAttributes().put(FENCES_ATTRIBUTE, List.of());
            return chain.filter(exchange);
        }
        List<Fence> fences = verified.fences();
        exchange.getAttributes().put(FENCES_ATTRIBUTE, fences);
        return caller(exchange, chainOfCertificates).flatMap(caller -> {
            this.listeners.forEach(listener -> listener.accepted(caller, method(request), path(request), verified));
            return chain.filter(exchange)
                    .contextWrite(context -> context.put(CONTEXT_KEY, fences))
                    .onErrorResume(failure -> stale(exchange, caller, failure));
        });
    }

    /** Answers a refused write that the application left unanswered, and audits it either way. */
    private Mono<Void> stale(ServerWebExchange exchange, FenceCaller caller, Throwable failure) {
        FencingTokenRejectedException rejection = FenceProblems.rejection(failure);
        if (rejection == null) {
            return Mono.error(failure);
        }
        ServerHttpRequest request = exchange.getRequest();
        this.listeners.forEach(listener -> listener.rejected(caller, method(request), path(request), rejection));
        if (exchange.getResponse().isCommitted()) {
            return Mono.error(failure);
        }
        return write(exchange.getResponse(), FenceProblems.stale(rejection));
    }

    private Mono<Fencing> fencing(ServerWebExchange exchange) {
        Fencing byPath = byPath(exchange.getRequest().getPath().pathWithinApplication());
        List<RequestMappingHandlerMapping> mappings = annotatedMappings();
        if (mappings.isEmpty()) {
            return Mono.just(byPath);
        }
        // The first mapping that has a handler for the request decides, as the dispatcher's order does.
        return Flux.fromIterable(mappings)
                .concatMap(mapping -> mapping.getHandler(exchange).onErrorResume(failure -> Mono.empty()))
                .next()
                .map(handler -> annotated(handler).orElse(byPath))
                .defaultIfEmpty(byPath);
    }

    private Fencing byPath(PathContainer path) {
        if (this.requiredPaths.stream().anyMatch(pattern -> pattern.matches(path))) {
            return Fencing.REQUIRED;
        }
        return this.optionalPaths.stream().anyMatch(pattern -> pattern.matches(path)) ? Fencing.OPTIONAL : Fencing.NONE;
    }

    private static Optional<Fencing> annotated(Object handler) {
        if (!(handler instanceof HandlerMethod method)) {
            return Optional.empty();
        }
        FencedEndpoint endpoint = annotation(method);
        return (endpoint != null)
                ? Optional.of(endpoint.optional() ? Fencing.OPTIONAL : Fencing.REQUIRED)
                : Optional.empty();
    }

    private static @Nullable FencedEndpoint annotation(HandlerMethod method) {
        FencedEndpoint endpoint = AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), FencedEndpoint.class);
        return (endpoint != null)
                ? endpoint
                : AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), FencedEndpoint.class);
    }

    /** The mappings with at least one marked handler method; none saves a second lookup per request. */
    private List<RequestMappingHandlerMapping> annotatedMappings() {
        List<RequestMappingHandlerMapping> mappings = this.annotated;
        if (mappings == null) {
            mappings = this.handlerMappings.get().stream()
                    .filter(mapping -> mapping.getHandlerMethods().values().stream()
                            .anyMatch(method -> annotation(method) != null))
                    .toList();
            this.annotated = mappings;
        }
        return mappings;
    }

    private static X509Certificate @Nullable [] clientCertificates(ServerHttpRequest request) {
        SslInfo ssl = request.getSslInfo();
        return (ssl != null) ? ssl.getPeerCertificates() : null;
    }

    private static Mono<FenceCaller> caller(ServerWebExchange exchange, X509Certificate @Nullable [] chain) {
        InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
        String address = (remote == null)
                ? "-"
                : (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
        return exchange.getPrincipal()
                .map(Principal::getName)
                .map(name -> FenceCaller.of(name, chain, address))
                .defaultIfEmpty(FenceCaller.of(null, chain, address));
    }

    private static Mono<Void> write(ServerHttpResponse response, FenceProblems.Problem problem) {
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return response.writeWith(
                Mono.fromSupplier(() -> response.bufferFactory().wrap(problem.bytes())));
    }

    private static String method(ServerHttpRequest request) {
        return request.getMethod().name();
    }

    private static String path(ServerHttpRequest request) {
        return request.getPath().value();
    }
}
