package dev.fencelock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The locks of one {@link LockClient#acquireAll(List)} call, held together. Closing it releases
 * every one of them, in the reverse of the order they were taken.
 *
 * <pre>{@code
 * try (MultiLockLease locks = client.acquireAll(List.of(LockRequest.of("account:7"), LockRequest.of("account:3")));
 *         FencingContext.Scope fences = FencingContext.openAll(locks)) {
 *     ledger.move(7, 3, amount);
 * }
 * }</pre>
 */
public final class MultiLockLease implements AutoCloseable {

    private final List<LockLease> leases;

    MultiLockLease(List<LockLease> leases) {
        this.leases = Collections.unmodifiableList(new ArrayList<>(leases));
    }

    /** The leases in the order they were taken: sorted by normalised resource name. */
    public List<LockLease> leases() {
        return this.leases;
    }

    /** The lease of {@code resource} (its normalised name), if it is one of these. */
    public Optional<LockLease> lease(String resource) {
        Objects.requireNonNull(resource, "resource must not be null");
        return this.leases.stream()
                .filter(lease -> lease.resource().equals(resource))
                .findFirst();
    }

    /** Whether every lock is still held. */
    public boolean isValid() {
        return this.leases.stream().allMatch(LockLease::isValid);
    }

    /** Runs {@code listener} for each of the locks that is lost while held. */
    public void onLost(Consumer<LockLostException> listener) {
        Objects.requireNonNull(listener, "listener must not be null");
        this.leases.forEach(lease -> lease.onLost(listener));
    }

    /**
     * Releases every lock, the last taken first.
     *
     * @return whether every one of them was still held until this call released it
     */
    public boolean release() {
        boolean allHeld = true;
        for (int i = this.leases.size() - 1; i >= 0; i--) {
            allHeld &= this.leases.get(i).release();
        }
        return allHeld;
    }

    /** Releases every lock without waiting for the store (see {@link LockLease#releaseAsync()}). */
    public CompletableFuture<Boolean> releaseAsync() {
        List<CompletableFuture<Boolean>> releases = new ArrayList<>();
        for (int i = this.leases.size() - 1; i >= 0; i--) {
            releases.add(this.leases.get(i).releaseAsync());
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> releases.stream().allMatch(CompletableFuture::join));
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "MultiLockLease" + this.leases;
    }
}
