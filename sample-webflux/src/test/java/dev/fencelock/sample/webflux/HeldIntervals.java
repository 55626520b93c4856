package dev.fencelock.sample.webflux;

import dev.fencelock.sample.webflux.stock.StockService;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.NameMatchMethodPointcut;
import org.springframework.aop.support.RootClassFilter;
import org.springframework.core.Ordered;
import reactor.core.publisher.Mono;

/**
 * Records when each reservation's own publisher runs: advice inside the lock's (a lower precedence),
 * so it starts after the lock is held and ends, before its completion travels on, before the lock's
 * release is even asked for. Two reservations whose intervals overlap held the lock together.
 */
final class HeldIntervals extends DefaultPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    /** One reservation's run, in {@link System#nanoTime()}. */
    record Interval(String sku, long start, long end) {}

    private final transient Queue<Interval> intervals = new ConcurrentLinkedQueue<>();

    HeldIntervals() {
        NameMatchMethodPointcut reserve = new NameMatchMethodPointcut();
        reserve.addMethodName("reserve");
        setPointcut(new ComposablePointcut(new RootClassFilter(StockService.class), reserve));
        setAdvice((MethodInterceptor) this::record);
        setOrder(Ordered.LOWEST_PRECEDENCE);
    }

    private Object record(MethodInvocation invocation) throws Throwable {
        String sku = (String) invocation.getArguments()[0];
        long[] start = new long[1];
        Mono<?> reservation = (Mono<?>) invocation.proceed();
        return reservation
                .doOnSubscribe(subscription -> start[0] = System.nanoTime())
                .doOnTerminate(() -> this.intervals.add(new Interval(sku, start[0], System.nanoTime())));
    }

    /** The completed or failed runs of {@code sku}'s reservations, by start. */
    List<Interval> of(String sku) {
        return this.intervals.stream()
                .filter(interval -> interval.sku().equals(sku))
                .sorted(Comparator.comparingLong(Interval::start))
                .toList();
    }
}
