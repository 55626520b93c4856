package dev.fencelock.etcd;

import dev.fencelock.LockException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What every etcd request of one backend shares: the jetcd client, the timer threads, the
 * timeouts, and whether the backend is closing. Owns the bound on every call ({@link #timed}), so
 * no request waits longer than it was allowed and every failure reaches callers as a {@link
 * LockException}.
 */
final class EtcdCalls {

    private final Client client;

    private final List<String> endpoints;

    private final Duration requestTimeout;

    /** How long one send of a guarded write waits before it is sent again; at most the request timeout. */
    private final Duration attemptTimeout;

    private final ScheduledExecutorService scheduler;

    private final EndpointProbe probe;

    private volatile boolean closed;

    EtcdCalls(Client client, List<String> endpoints, Duration requestTimeout, Duration attemptTimeout) {
        this.client = client;
        this.endpoints = List.copyOf(endpoints);
        this.requestTimeout = requestTimeout;
        this.attemptTimeout = attemptTimeout.compareTo(requestTimeout) < 0 ? attemptTimeout : requestTimeout;
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(2, runnable -> {
            Thread thread = new Thread(runnable, "fencelock-etcd");
            thread.setDaemon(true);
            return thread;
        });
        // Every request arms a timeout that is almost always cancelled: drop those at once, or they
        // pile up in the queue until their time comes (thousands under load).
        timers.setRemoveOnCancelPolicy(true);
        // Closing completes jetcd's streams, whose callbacks may still ask for work (a watch's waiters
        // fall back to reads): once the backend is closed, that work has nothing left to do.
        timers.setRejectedExecutionHandler(new ThreadPoolExecutor.DiscardPolicy());
        this.scheduler = timers;
        this.probe = new EndpointProbe(this.endpoints);
    }

    Client client() {
        return this.client;
    }

    List<String> endpoints() {
        return this.endpoints;
    }

    Duration requestTimeout() {
        return this.requestTimeout;
    }

    Duration attemptTimeout() {
        return this.attemptTimeout;
    }

    ScheduledExecutorService scheduler() {
        return this.scheduler;
    }

    boolean isClosed() {
        return this.closed;
    }

    /**
     * Starts a probe of the endpoints shortly before {@code remainingNanos} run out, if {@code
     * unanswered} still says so then, so that an error raised at that moment can say why etcd did not
     * answer ({@link EndpointProbe}). Cancel the returned task when the wait ends early.
     *
     * @param finding completed with the probe's sentence, or not at all
     */
    ScheduledFuture<?> probeBefore(long remainingNanos, BooleanSupplier unanswered, CompletableFuture<String> finding) {
        long lead = EndpointProbe.CONNECT_TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
        return this.scheduler.schedule(
                () -> {
                    if (unanswered.getAsBoolean()) {
                        this.probe.probe().thenAccept(finding::complete);
                    }
                },
                Math.max(0, remainingNanos - lead),
                TimeUnit.NANOSECONDS);
    }

    /** Marks the backend as closing: background retries and keep-alives stop from here on. */
    void markClosed() {
        this.closed = true;
    }

    /** Stops the timer threads; the last step of closing the backend. */
    void shutdown() {
        this.scheduler.shutdownNow();
    }

    <T> CompletableFuture<T> timed(CompletableFuture<T> future, String what) {
        return timed(future, what, this.requestTimeout);
    }

    /** Bounds a jetcd call and turns every failure of the store into {@link dev.fencelock.LockBackendUnavailableException}. */
    <T> CompletableFuture<T> timed(CompletableFuture<T> future, String what, Duration timeout) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ScheduledFuture<?> timer = this.scheduler.schedule(
                () -> result.completeExceptionally(new EtcdFailures.NoAnswerException("etcd " + this.endpoints
                        + " did not answer " + what + " within " + timeout.toMillis() + " ms")),
                timeout.toNanos(),
                TimeUnit.NANOSECONDS);
        future.whenComplete((value, failure) -> {
            timer.cancel(false);
            if (failure != null) {
                result.completeExceptionally(unavailable(what, failure));
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    LockException unavailable(String what, Throwable failure) {
        return EtcdFailures.unavailable(this.endpoints, what, failure);
    }

    static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
