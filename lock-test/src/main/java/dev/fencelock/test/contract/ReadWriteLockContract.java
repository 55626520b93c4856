package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Read-write locks ({@link LockMode#SHARED} readers, exclusive writers): readers hold together,
 * a writer holds alone, and the queue is served in arrival order across both modes, so a writer
 * is never starved by readers that came after it. Part of {@link LockBackendContract}; extend that.
 */
public abstract class ReadWriteLockContract extends LockContentionContract {

    ReadWriteLockContract() {}

    @Test
    void readersHoldTogetherAndAWriterWaitsForAllOfThem() throws Exception {
        LockClient a = client();
        LockClient b = client();
        LockClient writerClient = client();
        String resource = resource("readers");
        LockLease first = a.acquire(shared(resource));
        LockLease second = b.tryAcquire(shared(resource)).orElseThrow();
        assertThat(first.mode()).isEqualTo(LockMode.SHARED);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(writerClient.tryAcquire(resource)).isEmpty();

        CompletableFuture<LockLease> writer = writerClient.acquireAsync(
                LockRequest.builder(resource).waitTimeout(patience()).build());
        await().atMost(patience()).until(() -> keysOf(resource) == 3);
        first.release();
        assertThat(writer).isNotDone();
        second.release();
        LockLease written = writer.get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(written.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(written.isExclusive()).isTrue();
        written.release();
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void aWriterKeepsReadersOutAndHandsTheLockToAllWaitingReadersAtOnce() throws Exception {
        LockClient writerClient = client();
        String resource = resource("writer");
        LockLease writer = writerClient.acquire(LockRequest.of(resource));
        LockClient readerClient = client();
        assertThat(readerClient.tryAcquire(shared(resource))).isEmpty();
        List<CompletableFuture<LockLease>> readers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient reader = (i == 0) ? readerClient : client();
            readers.add(reader.acquireAsync(LockRequest.builder(resource)
                    .mode(LockMode.SHARED)
                    .waitTimeout(patience())
                    .build()));
        }
        await().atMost(patience()).until(() -> keysOf(resource) == 4);
        writer.release();
        List<LockLease> granted = new ArrayList<>();
        for (CompletableFuture<LockLease> reader : readers) {
            granted.add(reader.get(patience().toSeconds(), TimeUnit.SECONDS));
        }
        // All three hold at once, every one after the writer.
        assertThat(granted)
                .allMatch(LockLease::isValid)
                .allMatch(lease -> lease.fencingToken() > writer.fencingToken());
        granted.forEach(LockLease::release);
    }

    @Test
    void aWriterQueuedBeforeAReaderIsServedFirst() throws Exception {
        LockClient firstReaderClient = client();
        LockClient writerClient = client();
        LockClient lateReaderClient = client();
        String resource = resource("fifo-modes");
        LockLease firstReader = firstReaderClient.acquire(shared(resource));
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<LockLease> writer = writerClient
                .acquireAsync(
                        LockRequest.builder(resource).waitTimeout(patience()).build())
                .thenApply(lease -> {
                    order.add("writer");
                    return lease;
                });
        await().atMost(patience()).until(() -> keysOf(resource) == 2);
        // Readers alone would share with the first reader; this one came after a waiting writer.
        assertThat(lateReaderClient.tryAcquire(shared(resource))).isEmpty();
        CompletableFuture<LockLease> lateReader = lateReaderClient
                .acquireAsync(LockRequest.builder(resource)
                        .mode(LockMode.SHARED)
                        .waitTimeout(patience())
                        .build())
                .thenApply(lease -> {
                    order.add("reader");
                    return lease;
                });
        await().atMost(patience()).until(() -> keysOf(resource) == 3);
        firstReader.release();
        LockLease written = writer.get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(lateReader).isNotDone();
        written.release();
        LockLease read = lateReader.get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(order).containsExactly("writer", "reader");
        assertThat(written.fencingToken()).isGreaterThan(firstReader.fencingToken());
        assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
        read.release();
    }

    @Test
    void theQueueShowsEachEntrysMode() throws Exception {
        LockClient reader = client();
        LockClient writer = client();
        String resource = resource("queue-modes");
        LockLease read = reader.acquire(LockRequest.builder(resource)
                .mode(LockMode.SHARED)
                .requestId("reader-1")
                .build());
        CompletableFuture<LockLease> write = writer.acquireAsync(LockRequest.builder(resource)
                .requestId("writer-1")
                .waitTimeout(patience())
                .build());
        await().atMost(patience()).until(() -> keysOf(resource) == 2);
        List<QueueEntry> queue = reader.administration()
                .orElseThrow()
                .queue(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(queue).extracting(QueueEntry::requestId).containsExactly("reader-1", "writer-1");
        assertThat(queue).extracting(QueueEntry::kind).containsExactly(LockKind.SHARED, LockKind.EXCLUSIVE);
        assertThat(reader.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.mode()).isEqualTo(LockMode.SHARED));
        read.release();
        write.get(patience().toSeconds(), TimeUnit.SECONDS).release();
    }

    @Test
    void writersNeverOverlapReadersOrEachOtherUnderContention() throws Exception {
        List<LockClient> contenders = List.of(client(), client());
        String resource = resource("rw-counter");
        int threads = 6;
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        int[] counter = {0};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                boolean writes = t % 3 == 0;
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < fuzzIterations(); i++) {
                                LockRequest request = LockRequest.builder(resource)
                                        .mode(writes ? LockMode.EXCLUSIVE : LockMode.SHARED)
                                        .waitTimeout(patience())
                                        .build();
                                try (LockLease lease = client.acquire(request)) {
                                    if (writes) {
                                        if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                                            violations.incrementAndGet();
                                        }
                                        int read = counter[0];
                                        Thread.yield();
                                        counter[0] = read + 1;
                                        writersInside.decrementAndGet();
                                    } else {
                                        readersInside.incrementAndGet();
                                        if (writersInside.get() != 0) {
                                            violations.incrementAndGet();
                                        }
                                        Thread.yield();
                                        reads.incrementAndGet();
                                        readersInside.decrementAndGet();
                                    }
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations.get()).as("a writer inside with anyone else").isZero();
        assertThat(counter[0]).isEqualTo(2 * fuzzIterations());
        assertThat(reads.get()).isEqualTo(4 * fuzzIterations());
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    static LockRequest shared(String resource) {
        return LockRequest.builder(resource).mode(LockMode.SHARED).build();
    }
}
