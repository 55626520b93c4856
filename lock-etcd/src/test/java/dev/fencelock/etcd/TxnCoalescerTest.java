package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class TxnCoalescerTest {

    private final List<List<String>> sent = new ArrayList<>();

    private final List<CompletableFuture<Void>> inFlight = new ArrayList<>();

    private TxnCoalescer<String, String> coalescer(int maxBatch, int maxInFlight, int maxQueued) {
        return new TxnCoalescer<>(
                maxBatch, maxInFlight, maxQueued, request -> request.substring(0, 1), request -> false, batch -> {
                    this.sent.add(
                            batch.stream().map(TxnCoalescer.Pending::request).toList());
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    this.inFlight.add(done);
                    return done.thenRun(() -> batch.forEach(p -> p.result().complete(p.request())));
                });
    }

    @Test
    void aLoneRequestIsSentAtOnceAndLaterOnesLeaveTogether() {
        TxnCoalescer<String, String> coalescer = coalescer(8, 1, 100);
        CompletableFuture<String> first = coalescer.submit("a1");
        coalescer.submit("b1");
        coalescer.submit("c1");
        assertThat(this.sent).containsExactly(List.of("a1"));

        this.inFlight.get(0).complete(null);

        assertThat(first).isCompletedWithValue("a1");
        assertThat(this.sent).containsExactly(List.of("a1"), List.of("b1", "c1"));
    }

    @Test
    void requestsWithOneConflictKeyNeverShareABatch() {
        TxnCoalescer<String, String> coalescer = coalescer(8, 1, 100);
        coalescer.submit("a1");
        coalescer.submit("a2");
        coalescer.submit("b1");
        coalescer.submit("a3");

        this.inFlight.get(0).complete(null);
        this.inFlight.get(1).complete(null);

        assertThat(this.sent).containsExactly(List.of("a1"), List.of("a2", "b1"), List.of("a3"));
    }

    @Test
    void beyondTheQueueBoundRequestsAreRefusedUnsent() {
        TxnCoalescer<String, String> coalescer = coalescer(8, 1, 2);
        coalescer.submit("a1"); // in flight
        coalescer.submit("b1"); // queued
        coalescer.submit("c1"); // queued
        CompletableFuture<String> refused = coalescer.submit("d1");

        assertThat(refused).isCompletedExceptionally();
        Throwable failure = refused.handle((value, error) -> error).join();
        assertThat(failure).isInstanceOf(TxnCoalescer.NotSentException.class);
        assertThat(EtcdFailures.isKnownNotWritten(failure)).isTrue();
        assertThat(this.sent.stream().flatMap(List::stream)).doesNotContain("d1");
    }

    @Test
    void onlyRefusalsThatProveNothingWasWrittenAreKnown() {
        Function<Status, Throwable> wrapped =
                status -> new CompletionException(new RuntimeException("wrapped", status.asRuntimeException()));
        assertThat(EtcdFailures.isKnownNotWritten(
                        wrapped.apply(Status.RESOURCE_EXHAUSTED.withDescription("etcdserver: too many requests"))))
                .isTrue();
        assertThat(EtcdFailures.isKnownNotWritten(
                        wrapped.apply(Status.UNAVAILABLE.withDescription("etcdserver: request timed out"))))
                .isFalse();
        assertThat(EtcdFailures.isKnownNotWritten(wrapped.apply(Status.DEADLINE_EXCEEDED)))
                .isFalse();
        assertThat(EtcdFailures.isKnownNotWritten(new java.util.concurrent.TimeoutException()))
                .isFalse();
    }
}
