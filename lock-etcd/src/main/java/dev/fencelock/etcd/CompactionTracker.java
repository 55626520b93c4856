package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Finds the revision etcd's history was last compacted to, and since when this client knows it.
 *
 * <p>No cheap etcd call reports it (HashKV does, by reading the whole database), but a read at a
 * revision below it fails with "required revision has been compacted", and a read at it or above
 * succeeds. The compacted revision only grows, so a check first reads at the one found last time:
 * while nothing was compacted since, that one count-only read is the whole cost. When it fails, a
 * binary search between it and the head finds the new one in about log2(revisions since) reads, once
 * per compaction. Reads are serializable (the answering member's own state; compaction is applied
 * by every member at the same raft index) and count only the namespace's health key.
 *
 * <p>When the compacted revision moved is only known to the precision of the checks: the time of
 * the check that first saw it. Before this client saw one move, it counts from its first check.
 */
final class CompactionTracker {

    /**
     * What a check found.
     *
     * @param compactedRevision the revision history was compacted to; 0 if it never was
     * @param headRevision the answering member's current revision
     * @param since how long ago the compacted revision was first seen where it is now
     * @param seenToMove whether this client saw it move (else {@code since} counts from its first check)
     */
    record Compaction(long compactedRevision, long headRevision, Duration since, boolean seenToMove) {}

    private final EtcdCalls calls;

    private final ByteSequence probeKey;

    private final LongSupplier nanoClock;

    private final AtomicReference<@Nullable CompletableFuture<Compaction>> inFlight = new AtomicReference<>();

    /** The last result's state; guarded by {@code this}. */
    private long compacted;

    private long head;

    private long sinceNanos;

    private boolean seenToMove;

    private boolean checked;

    CompactionTracker(EtcdCalls calls, String probeKey, LongSupplier nanoClock) {
        this.calls = calls;
        this.probeKey = EtcdCalls.bytes(probeKey);
        this.nanoClock = nanoClock;
    }

    /** Finds the compacted revision now; checks that arrive while one runs share it. */
    CompletableFuture<Compaction> check(Duration timeout) {
        while (true) {
            CompletableFuture<Compaction> running = this.inFlight.get();
            if (running != null) {
                return running;
            }
            CompletableFuture<Compaction> next = new CompletableFuture<>();
            if (this.inFlight.compareAndSet(null, next)) {
                long floor;
                synchronized (this) {
                    floor = Math.max(1, this.compacted);
                }
                search(floor, timeout).whenComplete((found, failure) -> {
                    this.inFlight.set(null);
                    if (failure != null) {
                        next.completeExceptionally(failure);
                    } else {
                        next.complete(record(found[0], found[1]));
                    }
                });
                return next;
            }
        }
    }

    /** The last result, aged to now; empty before the first check succeeded. */
    synchronized @Nullable Compaction last() {
        return this.checked ? compaction() : null;
    }

    /** {compacted revision, head}: reads at {@code floor}, and searches above it when it was compacted away. */
    private CompletableFuture<long[]> search(long floor, Duration timeout) {
        return read(floor, timeout).thenCompose(answer -> {
            if (answer.readable()) {
                // Nothing compacted since: the floor stands (1 means "never": report 0).
                long found = (floor == 1) ? 0 : floor;
                return CompletableFuture.completedFuture(new long[] {found, answer.head()});
            }
            return read(0, timeout).thenCompose(current -> narrow(floor, current.head(), current.head(), timeout));
        });
    }

    /** Smallest readable revision in (unreadable, readable]: etcd's compacted revision. */
    private CompletableFuture<long[]> narrow(long unreadable, long readable, long head, Duration timeout) {
        if (readable - unreadable <= 1) {
            return CompletableFuture.completedFuture(new long[] {readable, head});
        }
        long middle = unreadable + (readable - unreadable) / 2;
        return read(middle, timeout)
                .thenCompose(answer -> answer.readable()
                        ? narrow(unreadable, middle, head, timeout)
                        : narrow(middle, readable, head, timeout));
    }

    private record Answer(boolean readable, long head) {}

    /** A count-only read of the probe key at {@code revision} (0: the current one). */
    private CompletableFuture<Answer> read(long revision, Duration timeout) {
        GetOption option = GetOption.builder()
                .withRevision(revision)
                .withCountOnly(true)
                .withSerializable(true)
                .build();
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        this.calls
                .timed(
                        () -> this.calls.client().getKVClient().get(this.probeKey, option),
                        "reading at revision " + revision,
                        timeout)
                .whenComplete((GetResponse response, Throwable failure) -> {
                    if (failure == null) {
                        answer.complete(new Answer(true, response.getHeader().getRevision()));
                    } else if (EtcdFailures.isCompacted(failure)) {
                        answer.complete(new Answer(false, 0));
                    } else if (EtcdFailures.isFutureRevision(failure)) {
                        // A member behind the others: nothing at or above its head is compacted.
                        answer.complete(new Answer(true, revision));
                    } else {
                        answer.completeExceptionally(failure);
                    }
                });
        return answer;
    }

    private synchronized Compaction record(long found, long headRevision) {
        long now = this.nanoClock.getAsLong();
        if (!this.checked) {
            this.checked = true;
            this.sinceNanos = now;
        } else if (found > this.compacted) {
            this.seenToMove = true;
            this.sinceNanos = now;
        }
        this.compacted = Math.max(this.compacted, found);
        this.head = Math.max(this.head, headRevision);
        return compaction();
    }

    private Compaction compaction() {
        return new Compaction(
                this.compacted,
                this.head,
                Duration.ofNanos(Math.max(0, this.nanoClock.getAsLong() - this.sinceNanos)),
                this.seenToMove);
    }
}
