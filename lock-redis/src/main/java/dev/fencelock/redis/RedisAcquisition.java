package dev.fencelock.redis;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import dev.fencelock.spi.WriteOperation;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition: subscribe to the resource's release channel, queue an entry ({@code SET NX PX}
 * with a new token), and re-read the standing when a release is published or the first entry ahead
 * expires, until the entry holds, the deadline passes or the caller cancels. Whatever ends the
 * attempt without the lock deletes the entry by compare-and-delete; an entry no one renews expires.
 */
final class RedisAcquisition {

    private final RedisLockBackend backend;

    private final AcquireCommand command;

    private final String resource;

    private final String channel;

    private final String value;

    final CompletableFuture<BackendLock> result = new CompletableFuture<>();

    private final Runnable wake = this::recheck;

    private volatile @Nullable RedisLock lock;

    private @Nullable ScheduledFuture<?> deadline;

    private @Nullable ScheduledFuture<?> expiryWake;

    private boolean checking;

    /** Set once a try-lock found the resource busy: the attempt only cleans up from then on. */
    private volatile boolean givingUp;

    private boolean checkAgain;

    RedisAcquisition(RedisLockBackend backend, AcquireCommand command) {
        this.backend = backend;
        this.command = command;
        this.resource = command.resource().value();
        this.channel = backend.keys().channel(this.resource);
        this.value = RedisKeys.value(backend.owner(), command.kind(), backend.instanceId());
    }

    CompletableFuture<BackendLock> start() {
        // The queueing write counts as the first read: a release published before its answer is
        // processed asks for another read instead of being dropped.
        synchronized (this) {
            this.checking = true;
        }
        this.deadline = this.backend
                .scheduler()
                .schedule(
                        () -> this.result.completeExceptionally(new LockAcquisitionTimeoutException(
                                "Lock '" + this.resource + "' stayed busy for the whole wait timeout")),
                        this.command.remainingNanos(),
                        TimeUnit.NANOSECONDS);
        this.result.whenComplete((granted, failure) -> finish(failure));
        long ttlMillis = TimeUnit.SECONDS.toMillis(this.command.ttlSeconds());
        RedisKeys keys = this.backend.keys();
        this.backend
                .channels()
                .register(this.channel, this.wake)
                .thenCompose(subscribed -> {
                    long sent = System.nanoTime();
                    return this.backend
                            .scripts()
                            .<List<Object>>run(
                                    RedisScripts.ENQUEUE,
                                    WriteOperation.ACQUIRE,
                                    new String[] {
                                        keys.queue(this.resource),
                                        keys.counter(this.resource),
                                        keys.entry(this.resource, this.command.requestId())
                                    },
                                    this.command.requestId(),
                                    this.value,
                                    Long.toString(ttlMillis),
                                    keys.entryPrefix(this.resource))
                            .thenApply(reply -> new Reply(RedisScripts.Standing.parse(reply), sent));
                })
                .whenCompleteAsync((reply, failure) -> queued(reply, failure, ttlMillis), this.backend.callbacks());
        return this.result;
    }

    private void queued(@Nullable Reply reply, @Nullable Throwable failure, long ttlMillis) {
        if (failure != null) {
            this.result.completeExceptionally(
                    this.backend.failure("Could not queue for lock '" + this.resource + "'", failure));
            return;
        }
        Objects.requireNonNull(reply);
        if (reply.standing.token() < 0) {
            this.result.completeExceptionally(
                    new LockException("Request id '" + this.command.requestId() + "' of lock '" + this.resource
                            + "' is in use by another client or as another kind of lock; use a new request id"));
            return;
        }
        RedisLock queued = new RedisLock(
                this.command.resource(),
                this.command.requestId(),
                this.backend.leaseId(),
                reply.standing.token(),
                this.command.kind(),
                this.value,
                ttlMillis,
                reply.sent);
        this.lock = queued;
        this.backend.startRenewal(queued);
        // A waiting entry that expires (its renewals failed) can never hold: the attempt ends.
        queued.onLost(lost -> this.result.completeExceptionally(new LockBackendUnavailableException(
                "Lock '" + this.resource + "' could not be kept in the queue: " + lost.getMessage(), lost)));
        if (this.result.isDone()) {
            finish(null);
            return;
        }
        decide(reply.standing);
        readDone();
    }

    /** A read of the standing was handled; reads again if a wake-up came meanwhile. */
    private void readDone() {
        boolean again;
        synchronized (this) {
            this.checking = false;
            again = this.checkAgain;
            this.checkAgain = false;
        }
        if (again) {
            recheck();
        }
    }

    private void decide(RedisScripts.Standing standing) {
        RedisLock queued = Objects.requireNonNull(this.lock);
        if (this.result.isDone() || this.givingUp) {
            return;
        }
        if (standing.token() < 0) {
            queued.markLost(new dev.fencelock.LockLostException(
                    "The queue entry of lock '" + this.resource + "' expired or was deleted while it waited"));
            return;
        }
        QueueWalk walk = new QueueWalk();
        long wakeInMillis = Long.MAX_VALUE;
        for (RedisScripts.Ahead ahead : standing.ahead()) {
            walk.next(RedisKeys.kindOf(ahead.value()));
            wakeInMillis = Math.min(wakeInMillis, (ahead.pttl() > 0) ? ahead.pttl() : queued.ttlMillis);
        }
        LockKind kind = this.command.kind();
        switch (walk.standingOf(kind)) {
            case HOLDS -> {
                if (!this.backend.granted(queued)) {
                    this.result.completeExceptionally(
                            new LockBackendUnavailableException("The Redis lock backend was closed"));
                } else if (!this.result.complete(queued) && this.result.isCompletedExceptionally()) {
                    // The deadline or a cancellation came first: the caller never sees this lock.
                    this.backend.forget(queued);
                    finish(null);
                }
            }
            case CONFLICTS ->
                this.result.completeExceptionally(new LockPermitsMismatchException(QueueWalk.conflictMessage(
                        this.resource, kind, Objects.requireNonNull(walk.conflictingAhead(kind)))));
            case WAITS -> {
                if (!this.command.waitForRelease()) {
                    // The entry goes before the caller hears "busy", so the caller's next try does not queue behind it.
                    this.givingUp = true;
                    LockAcquisitionTimeoutException busy =
                            new LockAcquisitionTimeoutException("Lock '" + this.resource + "' is held by someone else");
                    this.backend
                            .deleteEntry(this.resource, this.command.requestId(), this.value)
                            .whenComplete((deleted, failure) -> this.result.completeExceptionally(busy));
                    return;
                }
                // No polling: a release wakes us through the channel, an expiry ahead through this timer.
                synchronized (this) {
                    if (this.expiryWake != null) {
                        this.expiryWake.cancel(false);
                    }
                    this.expiryWake =
                            this.backend.scheduler().schedule(this::recheck, wakeInMillis + 1, TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    /** Re-reads the standing, one read at a time; a wake-up during a read asks for one more. */
    private void recheck() {
        if (this.result.isDone()) {
            return;
        }
        RedisLock queued;
        synchronized (this) {
            queued = this.lock;
            if (queued == null || this.checking) {
                this.checkAgain = true;
                return;
            }
            this.checking = true;
        }
        RedisKeys keys = this.backend.keys();
        this.backend
                .scripts()
                .<List<Object>>run(
                        RedisScripts.CHECK,
                        null,
                        new String[] {keys.queue(this.resource), keys.entry(this.resource, this.command.requestId())},
                        this.command.requestId(),
                        this.value,
                        keys.entryPrefix(this.resource))
                .whenCompleteAsync(
                        (reply, failure) -> {
                            if (this.result.isDone()) {
                                return;
                            }
                            if (failure != null) {
                                // The store did not answer: try again at the next wake-up, or when the entry ahead
                                // expires.
                                synchronized (this) {
                                    this.expiryWake = this.backend
                                            .scheduler()
                                            .schedule(this::recheck, queued.ttlMillis / 3, TimeUnit.MILLISECONDS);
                                }
                            } else {
                                decide(RedisScripts.Standing.parse(reply));
                            }
                            readDone();
                        },
                        this.backend.callbacks());
    }

    /** Ends the attempt: timers off, channel left; without the lock, the entry goes too. */
    private void finish(@Nullable Throwable failure) {
        synchronized (this) {
            if (this.deadline != null) {
                this.deadline.cancel(false);
            }
            if (this.expiryWake != null) {
                this.expiryWake.cancel(false);
            }
        }
        this.backend.channels().unregister(this.channel, this.wake);
        boolean holding = !this.result.isCompletedExceptionally() && this.result.isDone();
        if (!holding) {
            RedisLock queued = this.lock;
            if (queued != null) {
                queued.stopRenewal();
            }
            // Also when the queueing write's outcome is unknown: the compare-and-delete is safe either way.
            this.backend.deleteEntry(this.command.resource().value(), this.command.requestId(), this.value);
        }
    }

    private record Reply(RedisScripts.Standing standing, long sent) {}
}
