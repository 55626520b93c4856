package dev.fencelock.etcd;

import dev.fencelock.LockException;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What every etcd request of one backend shares: the jetcd client, the timer threads, the
 * timeouts, where its events go, and whether the backend is closing. Owns the bound on every call
 * ({@link #timed}), so no request waits longer than it was allowed and every failure reaches callers
 * as a {@link LockException}; every write goes through {@link #write}, which reports it.
 */
final class EtcdCalls {

    private final Client client;

    private final List<String> endpoints;

    private final EtcdRefusals.Identity identity;

    private final TlsMismatchProbe mismatchProbe;

    private final Duration requestTimeout;

    /** How long one send of a guarded write waits before it is sent again; at most the request timeout. */
    private final Duration attemptTimeout;

    private final ScheduledExecutorService scheduler;

    private final EndpointProbe probe;

    private final BackendEventListener events;

    private final ClusterLeadership leadership;

    private volatile boolean closed;

    EtcdCalls(
            Client client,
            EtcdRefusals.Identity identity,
            Duration requestTimeout,
            Duration attemptTimeout,
            BackendEventListener events) {
        this.client = client;
        this.events = events;
        this.leadership = new ClusterLeadership(events);
        this.endpoints = List.copyOf(identity.endpoints());
        this.identity = identity;
        this.mismatchProbe = new TlsMismatchProbe(this.endpoints, requestTimeout);
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

    /** Where this backend's events go (never {@code null}; {@link BackendEventListener#NONE} if nowhere). */
    BackendEventListener events() {
        return this.events;
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

    /**
     * Why {@code failure} happened, when it is a connection-level {@code UNAVAILABLE} (the client fails
     * fast instead of waiting for a connection, and gRPC's "io exception" names nothing): the probe's
     * sentence, or {@code ""} for any other failure. Completes within a probe's connect timeout.
     */
    CompletableFuture<String> explain(Throwable failure) {
        return EtcdFailures.isUnavailable(failure) ? this.probe.probe() : CompletableFuture.completedFuture("");
    }

    /** Marks the backend as closing: background retries and keep-alives stop from here on. */
    void markClosed() {
        this.closed = true;
    }

    /** Stops the timer threads; the last step of closing the backend. */
    void shutdown() {
        this.scheduler.shutdownNow();
    }

    /**
     * {@link #timed(Supplier, String, Duration)} for a write: its round trip is reported as a commit of
     * {@code operation}, and its answer's raft term, or its failure, to what this client knows of the
     * leader ({@link ClusterLeadership}). Reporting never affects the returned future.
     */
    <T extends Response> CompletableFuture<T> write(
            Supplier<CompletableFuture<T>> request, String what, Duration timeout, WriteOperation operation) {
        long sent = System.nanoTime();
        CompletableFuture<T> result = timed(request, what, timeout);
        result.whenComplete((response, failure) -> {
            long now = System.nanoTime();
            if (failure == null) {
                this.leadership.committed(sent, now, response.getHeader().getRaftTerm());
                this.events.committed(operation, Duration.ofNanos(now - sent));
            } else {
                this.leadership.failed(sent, now, failure);
            }
        });
        return result;
    }

    <T> CompletableFuture<T> timed(Supplier<CompletableFuture<T>> request, String what) {
        return timed(request, what, this.requestTimeout);
    }

    /**
     * Sends a jetcd call and bounds it by {@code timeout}; every failure of the store reaches the caller
     * as a {@link LockException}: {@link dev.fencelock.LockStoreAccessDeniedException} when etcd refused
     * this client, {@link dev.fencelock.LockBackendUnavailableException} otherwise. A call refused for a
     * stale authentication token is sent once more: it was not applied, and jetcd authenticates afresh.
     */
    <T> CompletableFuture<T> timed(Supplier<CompletableFuture<T>> request, String what, Duration timeout) {
        CompletableFuture<T> result = new CompletableFuture<>();
        // A dropped connection whose cause is still being asked of the port: etcd did answer, by dropping it.
        AtomicReference<@Nullable Throwable> dropped = new AtomicReference<>();
        ScheduledFuture<?> timer = this.scheduler.schedule(
                () -> {
                    Throwable failure = dropped.get();
                    result.completeExceptionally(
                            (failure != null)
                                    ? unavailable(what, failure)
                                    : new EtcdFailures.NoAnswerException("etcd " + this.endpoints + " did not answer "
                                            + what + " within " + timeout.toMillis() + " ms"));
                },
                timeout.toNanos(),
                TimeUnit.NANOSECONDS);
        result.whenComplete((value, failure) -> timer.cancel(false));
        send(request, what, result, dropped, true);
        return result;
    }

    private <T> void send(
            Supplier<CompletableFuture<T>> request,
            String what,
            CompletableFuture<T> result,
            AtomicReference<@Nullable Throwable> dropped,
            boolean mayResend) {
        CompletableFuture<T> future;
        try {
            future = request.get();
        } catch (RuntimeException ex) {
            future = CompletableFuture.failedFuture(ex);
        }
        future.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (mayResend && !result.isDone() && EtcdRefusals.isStaleToken(failure)) {
                send(request, what, result, dropped, false);
            } else if (!this.identity.tls() && EtcdRefusals.isDroppedWithoutAnswer(failure)) {
                // A TLS port drops a plain-text client without a word: ask the port which it speaks. The
                // answer may come after this request's time; it is kept a while for the next request.
                dropped.set(failure);
                this.mismatchProbe
                        .servesTls()
                        .thenAccept(servesTls -> result.completeExceptionally(
                                servesTls
                                        ? EtcdRefusals.plainTextToTls(this.identity, what, failure)
                                        : unavailable(what, failure)));
            } else if (this.identity.tls() && EtcdRefusals.isClosedDuringHandshake(failure)) {
                dropped.set(failure);
                this.mismatchProbe
                        .servesPlainText()
                        .thenAccept(servesPlain -> result.completeExceptionally(
                                servesPlain
                                        ? EtcdRefusals.tlsToPlainText(this.identity, what, failure)
                                        : unavailable(what, failure)));
            } else {
                result.completeExceptionally(unavailable(what, failure));
            }
        });
    }

    /** {@code failure} as the caller sees it: a refusal explained, or the store unavailable. */
    LockException unavailable(String what, Throwable failure) {
        LockException known = EtcdFailures.lockExceptionIn(failure);
        if (known != null) {
            return known;
        }
        LockException refusal = EtcdRefusals.explain(failure, this.identity, what);
        return (refusal != null) ? refusal : EtcdFailures.unavailable(this.endpoints, what, failure);
    }

    static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
