package dev.fencelock.interceptor;

import dev.fencelock.FencingContext;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.MultiLockLease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The locks one {@code @DistributedLock} call runs under: one lock, or the several of {@code keys}
 * taken together. The call holds only while every one of them is valid, and gives them all up at
 * its end.
 */
final class CallLocks {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final List<LockLease> leases;

    private final @Nullable MultiLockLease group;

    private CallLocks(List<LockLease> leases, @Nullable MultiLockLease group) {
        this.leases = leases;
        this.group = group;
    }

    static CallLocks of(LockLease lease) {
        return new CallLocks(List.of(lease), null);
    }

    static CallLocks of(MultiLockLease group) {
        return new CallLocks(group.leases(), group);
    }

    /** Locks taken one by one, without {@code acquireAll} ({@link CallLocksAcquisition}), in the order taken. */
    static CallLocks of(List<LockLease> leases) {
        return new CallLocks(List.copyOf(leases), null);
    }

    List<LockLease> leases() {
        return this.leases;
    }

    boolean isValid() {
        return this.leases.stream().allMatch(LockLease::isValid);
    }

    /** Tells {@code listener} of each lock that is lost, with the lock. */
    void onLost(BiConsumer<LockLease, LockLostException> listener) {
        this.leases.forEach(lease -> lease.onLost(cause -> listener.accept(lease, cause)));
    }

    /** Pushes one fence per lock, popped together when the scope closes. */
    FencingContext.Scope pushFences() {
        if (this.group != null) {
            return FencingContext.openAll(this.group);
        }
        if (this.leases.size() == 1) {
            return FencingContext.open(this.leases.get(0));
        }
        List<FencingContext.Scope> scopes = new ArrayList<>(this.leases.size());
        this.leases.forEach(lease -> scopes.add(FencingContext.open(lease)));
        return new FencingContext.Scope() {
            @Override
            public FencingContext.Fence fence() {
                return scopes.get(scopes.size() - 1).fence();
            }

            @Override
            public void close() {
                for (int i = scopes.size() - 1; i >= 0; i--) {
                    scopes.get(i).close();
                }
            }
        };
    }

    /** One fence per lock, in the order taken: what {@link #pushFences()} pushes. */
    List<FencingContext.Fence> fences() {
        return this.leases.stream()
                .map(lease -> new FencingContext.Fence(lease.resource(), lease.fencingToken(), lease))
                .toList();
    }

    /** Releases every lock; whether all were still held until then. A failure is logged: the lease expires. */
    boolean release() {
        try {
            if (this.group != null) {
                return this.group.release();
            }
            boolean held = true;
            for (int i = this.leases.size() - 1; i >= 0; i--) {
                held &= this.leases.get(i).release();
            }
            return held;
        } catch (RuntimeException ex) {
            logger.warn("Could not release {}; its lease will expire", resources(), ex);
            return false;
        }
    }

    /** Gives every lock up at once and deletes them in the background; completes with what {@link #release} returns. */
    CompletableFuture<Boolean> releaseAsync() {
        try {
            CompletableFuture<Boolean> released = (this.group != null) ? this.group.releaseAsync() : releaseEach();
            return released.exceptionally(failure -> {
                logger.warn("Could not release {}; its lease will expire", resources(), failure);
                return false;
            });
        } catch (RuntimeException ex) {
            logger.warn("Could not release {}; its lease will expire", resources(), ex);
            return CompletableFuture.completedFuture(false);
        }
    }

    private CompletableFuture<Boolean> releaseEach() {
        if (this.leases.size() == 1) {
            return this.leases.get(0).releaseAsync();
        }
        List<CompletableFuture<Boolean>> releases = new ArrayList<>(this.leases.size());
        for (int i = this.leases.size() - 1; i >= 0; i--) {
            releases.add(this.leases.get(i).releaseAsync());
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> releases.stream().allMatch(CompletableFuture::join));
    }

    /** "lock 'a'" or "locks 'a', 'b'", for messages. */
    String resources() {
        return ((this.leases.size() == 1) ? "lock " : "locks ")
                + this.leases.stream()
                        .map(lease -> "'" + lease.resource() + "'")
                        .collect(Collectors.joining(", "));
    }

    /** "fencing token 7" or "fencing tokens 7, 9", in the order of {@link #resources()}. */
    String tokens() {
        return ((this.leases.size() == 1) ? "fencing token " : "fencing tokens ")
                + this.leases.stream()
                        .map(lease -> String.valueOf(lease.fencingToken()))
                        .collect(Collectors.joining(", "));
    }
}
