package dev.fencelock.interceptor;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.annotation.DistributedLock;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

/**
 * The reactive service of docs/spring-boot.md ("Reactive methods"), compiled;
 * DistributedLockReactiveEtcdTests runs it on etcd.
 */
public class ReactiveReservationSnippet {

    /** A store that takes the fencing token with each write, as a fencing-aware repository does. */
    public interface Stock {

        Mono<Long> reserve(String sku, long token);

        Flux<String> skus();
    }

    private final Stock stock;

    public ReactiveReservationSnippet(Stock stock) {
        this.stock = stock;
    }

    @DistributedLock(key = "'stock:' + #sku", waitTimeout = "5s")
    public Mono<Long> reserve(String sku) {
        return Mono.deferContextual(context -> {
            List<Fence> fences = context.get(FencingContext.CONTEXT_KEY);
            long token = fences.get(fences.size() - 1).token();
            return this.stock.reserve(sku, token);
        });
    }

    @DistributedLock(name = "stock-audit")
    public Flux<String> audit() {
        return this.stock.skus(); // the lock is held until the Flux completes, fails or is cancelled
    }

    static void enableAutomaticContextPropagation() {
        Hooks.enableAutomaticContextPropagation();
    }
}
