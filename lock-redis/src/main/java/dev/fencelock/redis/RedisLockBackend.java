package dev.fencelock.redis;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.spi.WriteOperation;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks on one Redis server (or the current primary of a replicated one), through Lettuce: an
 * <b>efficiency lock</b>. Every acquisition writes its own entry with {@code SET NX PX ttl} and a
 * random owner value, queued by a token from a per-resource {@code INCR} counter; renewal and
 * release are compare-and-act scripts on that value; waiters wake on a release channel (pub/sub)
 * or when the entry ahead of them expires, never by polling.
 *
 * <p><b>Its tokens are not fencing tokens</b> ({@link #issuesFencingTokens()} is false). Redis
 * replicates asynchronously: a primary acknowledges a write before any replica has it. If the
 * primary fails and a replica that missed the last acquisition is promoted, the new primary has
 * neither that entry nor that counter increment, so it grants the same lock, with the same token,
 * to a second client while the first still holds it. No database could tell their writes apart,
 * so FenceLock's JDBC guard refuses these tokens. Use this backend where doing the work twice is
 * wasteful, not wrong; use etcd where it is wrong.
 */
public final class RedisLockBackend implements LockBackend, LockAdministration {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final RedisClient client;

    private final boolean ownsClient;

    private final RedisURI uri;

    private final StatefulRedisConnection<String, String> connection;

    private final ReleaseChannels channels;

    private final RedisScripts scripts;

    private final RedisKeys keys;

    private final String owner;

    private final long leaseId;

    private final String instanceId;

    private final BackendEventListener events;

    private final ScheduledExecutorService scheduler;

    private final ExecutorService callbacks;

    private final Map<String, RedisLock> held = new ConcurrentHashMap<>();

    private volatile boolean renewalsPaused;

    RedisLockBackend(RedisLockBackendBuilder builder) {
        this.uri = builder.uri();
        this.ownsClient = builder.client() == null;
        this.client = (builder.client() != null) ? builder.client() : RedisClient.create();
        this.events = builder.events();
        this.keys = new RedisKeys(builder.namespace());
        this.instanceId = builder.instanceId();
        long random = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
        this.leaseId = (random == 0) ? 1 : random;
        // The owner value: random per backend, its first 16 hex digits the lease id that queue entries show.
        this.owner = String.format(
                "%016x%016x", this.leaseId, ThreadLocalRandom.current().nextLong());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("fencelock-redis-timer-"));
        this.callbacks = Executors.newCachedThreadPool(daemon("fencelock-redis-"));
        try {
            this.connection = this.client.connect(this.uri);
            this.channels = new ReleaseChannels(this.client.connectPubSub(this.uri), this.callbacks);
        } catch (RuntimeException ex) {
            shutdownExecutors();
            if (this.ownsClient) {
                this.client.shutdown();
            }
            throw failure("Could not connect to " + describe(), ex);
        }
        this.scripts = new RedisScripts(this.connection.async(), this.events);
    }

    /** A builder; {@link RedisLockBackendBuilder#uri(String)} is required. */
    public static RedisLockBackendBuilder builder() {
        return new RedisLockBackendBuilder();
    }

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        RedisLock existing = this.held.get(heldKey(command.resource().value(), command.requestId()));
        if (existing != null && !existing.isReleased() && existing.kind().equals(command.kind())) {
            return CompletableFuture.completedFuture(existing);
        }
        return new RedisAcquisition(this, command).start();
    }

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        RedisLock redisLock = (RedisLock) lock;
        return renewEntry(redisLock).thenApply(extended -> {
            if (!extended) {
                LockLostException lost = lostException(redisLock, "its entry is gone (expired or force-released)");
                redisLock.markLost(lost);
                throw lost;
            }
            return redisLock.validUntilNanos();
        });
    }

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        RedisLock redisLock = (RedisLock) lock;
        redisLock.markReleased();
        forget(redisLock);
        return deleteEntry(lock.resource().value(), lock.requestId(), redisLock.value);
    }

    /** Redis replicates asynchronously; a failover can hand one lock and one token out twice. */
    @Override
    public boolean issuesFencingTokens() {
        return false;
    }

    @Override
    public String describe() {
        return "redis://" + this.uri.getHost() + ":" + this.uri.getPort() + " (efficiency lock, not fencing)";
    }

    /** Stops sending renewals, as if this process froze; its locks expire after their TTL. For tests. */
    public void pauseRenewals() {
        this.renewalsPaused = true;
    }

    /** Sends renewals again; locks that expired meanwhile stay lost. */
    public void resumeRenewals() {
        this.renewalsPaused = false;
    }

    /** The key prefix of {@code resource}'s keys, for tests and operators. */
    public String queueKey(String resource) {
        return this.keys.queue(resource);
    }

    // --- administration -----------------------------------------------------------------------

    @Override
    public String instanceId() {
        return this.instanceId;
    }

    @Override
    public CompletableFuture<BackendHealth> health(Duration timeout) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("backend", "redis");
        details.put("endpoint", this.uri.getHost() + ":" + this.uri.getPort());
        details.put("fencingTokens", false);
        details.put("heldLocks", this.held.size());
        return this.connection
                .async()
                .info("replication")
                .toCompletableFuture()
                .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((info, failure) -> {
                    if (failure != null) {
                        details.put("error", RedisScripts.unwrap(failure).toString());
                        return new BackendHealth(false, details);
                    }
                    info.lines()
                            .filter(line -> line.startsWith("role:"))
                            .findFirst()
                            .ifPresent(line ->
                                    details.put("role", line.substring(5).strip()));
                    return new BackendHealth(true, details);
                });
    }

    @Override
    public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        String name = resource.value();
        return this.scripts
                .<List<Object>>run(
                        RedisScripts.QUEUE, null, new String[] {this.keys.queue(name)}, this.keys.entryPrefix(name))
                .thenApply(reply -> {
                    List<QueueEntry> entries = new ArrayList<>();
                    for (RedisScripts.Ahead entry : parseEntries(reply)) {
                        entries.add(queueEntry(entry));
                    }
                    return entries;
                })
                .exceptionallyCompose(
                        ex -> CompletableFuture.failedFuture(failure("Could not read lock '" + name + "'", ex)));
    }

    @Override
    public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
        String name = resource.value();
        return this.scripts
                .<List<Object>>run(
                        RedisScripts.FORCE_RELEASE,
                        WriteOperation.RELEASE,
                        new String[] {this.keys.queue(name)},
                        this.keys.entryPrefix(name),
                        this.keys.channel(name))
                .thenApply(reply -> parseEntries(reply).stream().findFirst().map(RedisLockBackend::queueEntry));
    }

    private static List<RedisScripts.Ahead> parseEntries(List<Object> reply) {
        List<Object> withToken = new ArrayList<>(reply.size() + 1);
        withToken.add(0L);
        withToken.addAll(reply);
        return RedisScripts.Standing.parse(withToken).ahead();
    }

    private static QueueEntry queueEntry(RedisScripts.Ahead entry) {
        String owner = RedisKeys.ownerOf(entry.value());
        long leaseId = Long.parseUnsignedLong(owner.substring(0, Math.min(owner.length(), 16)), 16);
        return new QueueEntry(
                entry.requestId(),
                leaseId,
                entry.token(),
                RedisKeys.instanceOf(entry.value()),
                RedisKeys.kindOf(entry.value()));
    }

    // --- what acquisitions and renewals share ---------------------------------------------------

    RedisKeys keys() {
        return this.keys;
    }

    RedisScripts scripts() {
        return this.scripts;
    }

    ReleaseChannels channels() {
        return this.channels;
    }

    ScheduledExecutorService scheduler() {
        return this.scheduler;
    }

    ExecutorService callbacks() {
        return this.callbacks;
    }

    String owner() {
        return this.owner;
    }

    long leaseId() {
        return this.leaseId;
    }

    /** Records a lock as held; false when this backend closed meanwhile. */
    boolean granted(RedisLock lock) {
        if (this.scheduler.isShutdown()) {
            return false;
        }
        this.held.put(heldKey(lock.resource().value(), lock.requestId()), lock);
        return true;
    }

    void forget(RedisLock lock) {
        lock.stopRenewal();
        this.held.remove(heldKey(lock.resource().value(), lock.requestId()), lock);
    }

    /** Renews {@code lock}'s entry every third of its TTL until it is released or lost. */
    void startRenewal(RedisLock lock) {
        long period = Math.max(1, lock.ttlMillis / 3);
        lock.renewal(this.scheduler.scheduleAtFixedRate(
                () -> renewInBackground(lock), period, period, TimeUnit.MILLISECONDS));
    }

    private void renewInBackground(RedisLock lock) {
        if (lock.isReleased() || lock.isLost()) {
            lock.stopRenewal();
            return;
        }
        if (lock.expired()) {
            // Invariant 6: past its validity this process no longer vouches for the lock, answered or not.
            lock.markLost(lostException(lock, "it could not be renewed before its lease ran out"));
            forget(lock);
            return;
        }
        if (this.renewalsPaused) {
            return;
        }
        renewEntry(lock).whenComplete((extended, failure) -> {
            if (failure != null) {
                this.events.renewalFailed(RedisScripts.unwrap(failure));
            } else if (!extended) {
                lock.markLost(lostException(lock, "its entry is gone (expired or force-released)"));
                forget(lock);
            }
        });
    }

    private CompletableFuture<Boolean> renewEntry(RedisLock lock) {
        long sent = System.nanoTime();
        String resource = lock.resource().value();
        return this.scripts
                .<Long>run(
                        RedisScripts.RENEW,
                        WriteOperation.RENEW,
                        new String[] {this.keys.queue(resource), this.keys.entry(resource, lock.requestId())},
                        lock.value,
                        Long.toString(lock.ttlMillis))
                .handle((reply, failure) -> {
                    if (failure != null) {
                        throw failure("Could not renew lock '" + resource + "'", failure);
                    }
                    if (reply == 1L) {
                        lock.extended(sent);
                        return true;
                    }
                    return false;
                });
    }

    /** Compare-and-delete of an entry: deletes it only while it still has {@code value}. */
    CompletableFuture<Boolean> deleteEntry(String resource, String requestId, String value) {
        return this.scripts
                .<Long>run(
                        RedisScripts.RELEASE,
                        WriteOperation.RELEASE,
                        new String[] {this.keys.queue(resource), this.keys.entry(resource, requestId)},
                        requestId,
                        value,
                        this.keys.channel(resource))
                .handle((reply, failure) -> {
                    if (failure != null) {
                        // The entry is no longer renewed: it expires within its TTL at the latest.
                        throw failure("Could not delete lock '" + resource + "'", failure);
                    }
                    return reply == 1L;
                });
    }

    LockException failure(String what, Throwable failure) {
        Throwable cause = RedisScripts.unwrap(failure);
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        String message = String.valueOf(cause.getMessage());
        if (cause instanceof RedisCommandExecutionException
                && (message.startsWith("NOAUTH") || message.startsWith("WRONGPASS") || message.startsWith("NOPERM"))) {
            return new LockStoreAccessDeniedException(
                    what + ": " + describe() + " refused the credentials or permissions (" + message
                            + "); check the Redis user, password and ACL",
                    cause);
        }
        return new LockBackendUnavailableException(what + ": " + describe() + " did not answer (" + cause + ")", cause);
    }

    private static LockLostException lostException(RedisLock lock, String why) {
        return new LockLostException(
                "Lock '" + lock.resource().value() + "' (token " + lock.fencingToken() + ") was lost: " + why);
    }

    private static String heldKey(String resource, String requestId) {
        return resource + '\u0000' + requestId;
    }

    @Override
    public void close() {
        List<CompletableFuture<Boolean>> releases = new ArrayList<>();
        for (RedisLock lock : new ArrayList<>(this.held.values())) {
            if (lock.markReleased()) {
                forget(lock);
                releases.add(deleteEntry(lock.resource().value(), lock.requestId(), lock.value));
            }
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        } catch (Exception ex) {
            // Entries no one renews expire within their TTL.
        }
        shutdownExecutors();
        this.channels.close();
        this.connection.close();
        if (this.ownsClient) {
            this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void shutdownExecutors() {
        this.scheduler.shutdownNow();
        this.callbacks.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
