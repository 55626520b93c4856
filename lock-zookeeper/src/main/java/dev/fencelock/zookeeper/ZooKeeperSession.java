package dev.fencelock.zookeeper;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockStoreAccessDeniedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ZooKeeper session: the lease of every lock of a backend with one TTL. Its timeout is the TTL;
 * when the ensemble expires it, or this process cannot confirm it before its local deadline, its
 * locks are lost, and the ensemble deletes their nodes with the session.
 *
 * <p><b>Validity.</b> A {@code sync} heartbeat every quarter of the timeout goes through the
 * ensemble's leader, so its answer proves that the server this session talks to was connected to the
 * leader after the heartbeat was sent. The leader expires a session a full timeout after the last
 * time it learnt of the session's activity, which a follower reports at its next ping; since the
 * previous heartbeat had been reported by then, the leader cannot expire the session before {@code
 * sent + timeout − period}. This process stops trusting its locks a safety margin (a tenth of the
 * timeout, at least 100 ms) before that.
 */
final class ZooKeeperSession implements Watcher {

    private static final Logger logger = LoggerFactory.getLogger(ZooKeeperSession.class);

    private static final String DEADLINE_PASSED =
            "no heartbeat of its ZooKeeper session was answered before its local deadline";

    final long ttlSeconds;

    private final ZooKeeperLockBackend backend;

    private final int timeoutMillis;

    private final long periodNanos;

    private final long validityNanos;

    private final long createdNanos;

    private final ZKClientConfig clientConfig;

    private final ZooKeeper zooKeeper;

    final ZooKeeperCalls calls;

    final CompletableFuture<ZooKeeperSession> connected = new CompletableFuture<>();

    private final Set<ZooKeeperLock> locks = ConcurrentHashMap.newKeySet();

    private volatile long validUntilNanos;

    private volatile boolean ended;

    private @Nullable ScheduledFuture<?> heartbeat;

    private final AtomicBoolean probing = new AtomicBoolean();

    ZooKeeperSession(ZooKeeperLockBackend backend, long ttlSeconds) {
        this.backend = backend;
        this.ttlSeconds = ttlSeconds;
        this.timeoutMillis = Math.toIntExact(TimeUnit.SECONDS.toMillis(ttlSeconds));
        long timeoutNanos = TimeUnit.SECONDS.toNanos(ttlSeconds);
        this.periodNanos = timeoutNanos / 4;
        this.validityNanos = timeoutNanos - this.periodNanos - safetyMargin(timeoutNanos);
        this.createdNanos = System.nanoTime();
        try {
            this.clientConfig = ZooKeeperTls.clientConfig(backend.tls());
            this.zooKeeper = new ZooKeeper(backend.connectString(), this.timeoutMillis, this, this.clientConfig);
        } catch (IOException | IllegalArgumentException ex) {
            throw new LockBackendUnavailableException("Could not open a session on " + backend.describe(), ex);
        }
        String auth = backend.digestAuth();
        if (auth != null) {
            this.zooKeeper.addAuthInfo("digest", auth.getBytes(StandardCharsets.UTF_8));
        }
        this.calls = new ZooKeeperCalls(this.zooKeeper, backend.callbacks());
        // The client reports no failed attempt before a first connection, so the probe asks on a timer.
        try {
            ScheduledFuture<?> probes =
                    backend.scheduler().scheduleWithFixedDelay(this::probeTls, 1, 5, TimeUnit.SECONDS);
            this.connected.whenComplete((session, failure) -> probes.cancel(false));
        } catch (RejectedExecutionException ex) {
            // The backend is closing: no one will wait for this session.
        }
    }

    /** A tenth of the timeout, at least 100 ms: room for clock-rate drift and scheduling delay. */
    static long safetyMargin(long timeoutNanos) {
        return Math.max(timeoutNanos / 10, TimeUnit.MILLISECONDS.toNanos(100));
    }

    long sessionId() {
        return this.zooKeeper.getSessionId();
    }

    long validUntilNanos() {
        return this.validUntilNanos;
    }

    /** Whether this session is before its local deadline: a lock on it may be trusted. */
    boolean isTrusted() {
        return System.nanoTime() - this.validUntilNanos < 0;
    }

    boolean isEnded() {
        return this.ended;
    }

    /** A lock granted on this session; false when the session ended meanwhile. */
    boolean add(ZooKeeperLock lock) {
        this.locks.add(lock);
        if (this.ended) {
            this.locks.remove(lock);
            return false;
        }
        return true;
    }

    void remove(ZooKeeperLock lock) {
        this.locks.remove(lock);
    }

    int lockCount() {
        return this.locks.size();
    }

    /**
     * The ensemble answered a request that was sent at {@code sentNanos} and went through its leader.
     * Once its locks passed their local deadline they stay lost: an answer that comes later ends the
     * session instead of making them valid again.
     */
    void confirmed(long sentNanos) {
        synchronized (this) {
            if (this.locks.isEmpty() || isTrusted()) {
                long until = sentNanos + this.validityNanos;
                if (until - this.validUntilNanos > 0) {
                    this.validUntilNanos = until;
                }
                return;
            }
        }
        end(DEADLINE_PASSED, true);
    }

    /** Session events, on the client's event thread: connected, expired, refused. */
    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            return;
        }
        switch (event.getState()) {
            case SyncConnected -> onConnected();
            case Expired -> end("its ZooKeeper session expired", true);
            case AuthFailed -> {
                this.connected.completeExceptionally(new LockStoreAccessDeniedException(
                        backendName() + " refused the session's credentials; check fencelock.zookeeper's digest"
                                + " user and password"));
                end("ZooKeeper refused the session's credentials", true);
            }
            default -> {
                // Disconnected: the client reconnects on its own; the validity decides how long locks stay trusted.
            }
        }
    }

    private void onConnected() {
        if (this.connected.isDone()) {
            return;
        }
        int negotiated = this.zooKeeper.getSessionTimeout();
        if (negotiated != this.timeoutMillis) {
            this.connected.completeExceptionally(new LockException("A lease TTL of " + this.ttlSeconds
                    + " s needs a ZooKeeper session of " + this.timeoutMillis + " ms, but " + backendName()
                    + " allows " + negotiated + " ms: its servers bound sessions by minSessionTimeout and"
                    + " maxSessionTimeout (by default 2 and 20 ticks). Use a lease TTL within them, or"
                    + " configure the servers for it; a lock whose lease is not what was asked for is refused."));
            end(null, true);
            return;
        }
        confirmed(this.createdNanos);
        long period = Math.max(1, this.periodNanos);
        this.heartbeat =
                this.backend.scheduler().scheduleAtFixedRate(this::heartbeat, period, period, TimeUnit.NANOSECONDS);
        this.connected.complete(this);
    }

    /**
     * The session has not connected yet: when TLS is why, the client would retry until the wait time
     * ends, so the session ends now with the reason. One probe at a time, on the callback threads.
     */
    private void probeTls() {
        if (this.connected.isDone() || !this.probing.compareAndSet(false, true)) {
            return;
        }
        try {
            this.backend.callbacks().execute(() -> {
                try {
                    LockException failure = diagnoseTls();
                    if (failure != null && this.connected.completeExceptionally(failure)) {
                        logger.warn("{}", failure.getMessage());
                        end(failure.getMessage(), true);
                    }
                } finally {
                    this.probing.set(false);
                }
            });
        } catch (RejectedExecutionException ex) {
            this.probing.set(false); // the backend is closing
        }
    }

    private @Nullable LockException diagnoseTls() {
        try {
            javax.net.ssl.SSLContext context =
                    (this.backend.tls() != null) ? ZooKeeperTls.sslContext(this.clientConfig) : null;
            return ZooKeeperTlsProbe.diagnose(this.backend.connectString(), context, backendName());
        } catch (IllegalArgumentException ex) {
            return new LockBackendUnavailableException(ex.getMessage(), ex); // the TLS stores became unreadable
        } catch (RuntimeException ex) {
            logger.debug("Could not probe {} for a TLS failure", backendName(), ex);
            return null;
        }
    }

    private void heartbeat() {
        if (this.ended) {
            return;
        }
        if (!this.locks.isEmpty() && !isTrusted()) {
            end(DEADLINE_PASSED, true);
            return;
        }
        if (this.backend.renewalsPaused()) {
            return;
        }
        long sent = System.nanoTime();
        this.calls.sync(this.backend.paths().namespace()).whenComplete((done, failure) -> {
            if (failure == null) {
                confirmed(sent);
            } else {
                this.backend.events().renewalFailed(failure);
            }
        });
    }

    /**
     * Ends the session once: its locks are lost with {@code why} (none when {@code why} is null),
     * the backend forgets it, and the client closes, which deletes its nodes when the ensemble
     * still knows it.
     */
    void end(@Nullable String why, boolean lostLocks) {
        synchronized (this) {
            if (this.ended) {
                return;
            }
            this.ended = true;
        }
        ScheduledFuture<?> current = this.heartbeat;
        if (current != null) {
            current.cancel(false);
        }
        this.backend.forget(this);
        if (!this.connected.isDone()) {
            this.connected.completeExceptionally(
                    new LockBackendUnavailableException("The ZooKeeper session for a lease TTL of " + this.ttlSeconds
                            + " s ended before it connected" + ((why != null) ? ": " + why : "")));
        }
        List<ZooKeeperLock> held = new ArrayList<>(this.locks);
        this.locks.clear();
        int lost = 0;
        for (ZooKeeperLock lock : held) {
            if (lostLocks && why != null && lock.markLost(lostException(lock, why))) {
                lost++;
            }
            this.backend.forget(lock);
        }
        if (lost > 0) {
            logger.warn("{} lock(s) on {} are lost: {}", lost, backendName(), why);
            this.backend.events().leaseExpired(lost);
        }
        try {
            this.backend.callbacks().execute(this::close);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            close(); // the backend is closing
        }
    }

    /** Closes the client (deleting this session's nodes if the ensemble still has it), bounded. */
    void close() {
        try {
            this.zooKeeper.close(2_000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    static LockLostException lostException(ZooKeeperLock lock, String why) {
        return new LockLostException(
                "Lock '" + lock.resource().value() + "' (token " + lock.fencingToken() + ") was lost: " + why);
    }

    private String backendName() {
        return this.backend.describe();
    }
}
