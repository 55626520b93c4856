package dev.fencelock.http;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import java.util.List;
import java.util.Set;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * The {@link FenceHeaderClientInterceptor} of a {@code WebClient}: adds the fences, signed, when
 * the request is subscribed to.
 *
 * <p>Fences are bound to a thread. They are read from the subscribing thread (a call made under
 * a lock and {@code block()}ed, or subscribed on the lock holder's thread), or else from the
 * Reactor context under {@value #CONTEXT_KEY}, where Micrometer's context propagation puts them
 * ({@code contextCapture()}, or Reactor's automatic context propagation). A chain subscribed on
 * another thread without either goes out without fences.
 */
public final class FenceHeaderExchangeFilter implements ExchangeFilterFunction {

    /** The Reactor context key of the fences: {@link FencingContext#CONTEXT_KEY}. */
    public static final String CONTEXT_KEY = FencingContext.CONTEXT_KEY;

    private final FenceHeaderSigner signer;

    private final Set<String> hosts;

    /**
     * @param hosts the hosts that receive fences; empty for every host
     */
    public FenceHeaderExchangeFilter(FenceHeaderSigner signer, Set<String> hosts) {
        this.signer = signer;
        this.hosts = FenceHeaderClientInterceptor.lowerCase(hosts);
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (!FenceHeaderClientInterceptor.sendsTo(this.hosts, request.url())) {
            return next.exchange(request);
        }
        return Mono.deferContextual(context -> {
            List<Fence> fences = FencingContext.all();
            if (fences.isEmpty()) {
                fences = context.<List<Fence>>getOrEmpty(CONTEXT_KEY).orElse(List.of());
            }
            String header = this.signer.header(fences);
            if (header == null) {
                return next.exchange(request);
            }
            return next.exchange(ClientRequest.from(request)
                    .headers(headers -> headers.set(FenceHeader.NAME, header))
                    .build());
        });
    }
}
