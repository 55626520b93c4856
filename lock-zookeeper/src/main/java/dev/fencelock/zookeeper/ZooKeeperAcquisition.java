package dev.fencelock.zookeeper;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockMode;
import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import dev.fencelock.spi.WriteOperation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition: create the node (finding it again when the create's answer was lost), then read
 * the resource's children and decide, watching the node it waits for, until its node holds, the
 * deadline passes or the caller cancels. Whatever ends the attempt without the lock deletes the
 * node; a node whose create had an unknown outcome is looked for by name and deleted.
 */
final class ZooKeeperAcquisition {

    private final ZooKeeperLockBackend backend;

    private final AcquireCommand command;

    private final String resource;

    private final String parent;

    private final String prefix;

    final CompletableFuture<BackendLock> result = new CompletableFuture<>();

    private @Nullable ZooKeeperSession session;

    private @Nullable ZooKeeperLock lock;

    /** The attempt ended; a node created from now on is deleted at once. */
    private boolean finished;

    /** A create was sent whose outcome is not known: its node may exist. */
    private boolean createUnknown;

    private boolean checking;

    private boolean checkAgain;

    private volatile boolean givingUp;

    private @Nullable ScheduledFuture<?> deadline;

    private final Watcher wake = event -> recheck();

    ZooKeeperAcquisition(ZooKeeperLockBackend backend, AcquireCommand command) {
        this.backend = backend;
        this.command = command;
        this.resource = command.resource().value();
        this.parent = backend.paths().resource(this.resource);
        this.prefix = ZooKeeperPaths.prefix(command.kind(), command.requestId(), ZooKeeperPaths.nonce());
    }

    CompletableFuture<BackendLock> start() {
        synchronized (this) {
            this.checking = true; // the create counts as the first read
        }
        this.deadline = this.backend
                .scheduler()
                .schedule(
                        () -> this.result.completeExceptionally(new LockAcquisitionTimeoutException(
                                "Lock '" + this.resource + "' stayed busy for the whole wait timeout")),
                        this.command.remainingNanos(),
                        TimeUnit.NANOSECONDS);
        this.result.whenComplete((granted, failure) -> finish());
        this.backend
                .session(this.command.ttlSeconds(), this.command.deadlineNanos())
                .thenCompose(opened -> {
                    synchronized (this) {
                        this.session = opened;
                    }
                    return create(opened);
                })
                .whenComplete(this::created);
        return this.result;
    }

    /**
     * Starts an acquisition, or joins the waiting one of the same request id in {@code waiting}
     * (under {@code key}): on etcd the two would share one key, here they share one node.
     */
    static CompletableFuture<BackendLock> startOrJoin(
            ZooKeeperLockBackend backend,
            AcquireCommand command,
            Map<String, ZooKeeperAcquisition> waiting,
            String key) {
        ZooKeeperAcquisition[] joined = {null};
        ZooKeeperAcquisition attempt = waiting.compute(key, (k, current) -> {
            joined[0] = (current != null && current.joinable(command)) ? current : null;
            return (joined[0] != null) ? current : new ZooKeeperAcquisition(backend, command);
        });
        if (joined[0] != null) {
            return attempt.join(command);
        }
        attempt.result.whenComplete((lock, failure) -> waiting.remove(key, attempt));
        return attempt.start();
    }

    /** Ends this acquisition without the lock, as its backend closes. */
    void end(LockBackendUnavailableException why) {
        this.result.completeExceptionally(why);
    }

    /** Whether an acquisition of {@code other} may share this one's node: same kind and session, still waiting. */
    boolean joinable(AcquireCommand other) {
        return !this.result.isDone()
                && other.kind().equals(this.command.kind())
                && other.ttlSeconds() == this.command.ttlSeconds();
    }

    /**
     * A second acquisition of this one's request id: it waits for the same node, with a deadline of
     * its own, and both get the same lock. Like a waiter whose key goes, the first gives up with it:
     * when either ends without the lock, the node goes and the other fails too.
     */
    CompletableFuture<BackendLock> join(AcquireCommand second) {
        CompletableFuture<BackendLock> joined = new CompletableFuture<>();
        ScheduledFuture<?> timeout = this.backend
                .scheduler()
                .schedule(
                        () -> joined.completeExceptionally(new LockAcquisitionTimeoutException(
                                "Lock '" + this.resource + "' stayed busy for the whole wait timeout")),
                        second.remainingNanos(),
                        TimeUnit.NANOSECONDS);
        this.result.whenComplete((lock, failure) -> {
            timeout.cancel(false);
            if (failure != null) {
                joined.completeExceptionally(ZooKeeperLockBackend.unwrap(failure));
            } else {
                joined.complete(lock);
            }
        });
        joined.whenComplete((lock, failure) -> {
            if (failure != null) {
                this.result.completeExceptionally(new LockException(
                        "An acquisition of lock '" + this.resource
                                + "' with the same request id gave up, and the node they shared went with it",
                        failure));
            }
        });
        return joined;
    }

    /** Creates the node (and the resource's node first when it is missing). */
    private CompletableFuture<ZooKeeperCalls.Created> create(ZooKeeperSession opened) {
        synchronized (this) {
            if (this.finished) {
                return CompletableFuture.failedFuture(new IllegalStateException("The attempt ended"));
            }
            this.createUnknown = true;
        }
        long sent = System.nanoTime();
        return opened.calls
                .create(
                        this.parent + "/" + this.prefix,
                        holderRecord(),
                        this.backend.acl(),
                        CreateMode.EPHEMERAL_SEQUENTIAL)
                .thenApply(created -> {
                    this.backend.events().committed(WriteOperation.ACQUIRE, Duration.ofNanos(System.nanoTime() - sent));
                    // A create goes through the leader, as a heartbeat does: it confirms the session too.
                    opened.confirmed(sent);
                    return created;
                })
                .exceptionallyCompose(failure -> {
                    Code code = ZooKeeperCalls.code(failure);
                    if (code == Code.NONODE) {
                        // The resource's node is new, or was an empty container that ZooKeeper deleted.
                        return this.backend
                                .createIfMissing(opened, this.parent, CreateMode.CONTAINER)
                                .thenCompose(ready -> create(opened));
                    }
                    if (ZooKeeperCalls.outcomeUnknown(failure)) {
                        return findOrCreate(opened);
                    }
                    return CompletableFuture.failedFuture(failure);
                });
    }

    /** After a create whose answer was lost: the node, if it was created, else a new create. */
    private CompletableFuture<ZooKeeperCalls.Created> findOrCreate(ZooKeeperSession opened) {
        if (this.result.isDone() || opened.isEnded()) {
            return CompletableFuture.failedFuture(new LockBackendUnavailableException(
                    "Lost the connection to ZooKeeper while queueing for lock '" + this.resource + "'"));
        }
        return find(opened)
                .thenCompose(found -> (found != null) ? CompletableFuture.completedFuture(found) : create(opened))
                .exceptionallyCompose(failure -> ZooKeeperCalls.outcomeUnknown(failure)
                        ? this.backend.retryLater(() -> findOrCreate(opened))
                        : CompletableFuture.failedFuture(failure));
    }

    /**
     * This attempt's node, looked for after a sync, or {@code null} when it was never created. Its
     * prefix carries this attempt's nonce; the owner is checked as well.
     */
    private CompletableFuture<ZooKeeperCalls.@Nullable Created> find(ZooKeeperSession opened) {
        return opened.calls
                .sync(this.parent)
                .thenCompose(synced -> opened.calls.children(this.parent, null))
                .thenCompose(names -> ownNode(
                        opened,
                        names.stream()
                                .filter(name -> name.startsWith(this.prefix))
                                .toList(),
                        0))
                .exceptionallyCompose(failure -> (ZooKeeperCalls.code(failure) == Code.NONODE)
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(failure));
    }

    /** The first of {@code candidates}, from {@code index} on, that is a node of this session. */
    private CompletableFuture<ZooKeeperCalls.@Nullable Created> ownNode(
            ZooKeeperSession opened, List<String> candidates, int index) {
        if (index == candidates.size()) {
            return CompletableFuture.completedFuture(null);
        }
        String path = this.parent + "/" + candidates.get(index);
        return opened.calls
                .exists(path, null)
                .thenCompose(stat -> (stat != null && stat.getEphemeralOwner() == opened.sessionId())
                        ? CompletableFuture.completedFuture(new ZooKeeperCalls.Created(path, stat))
                        : ownNode(opened, candidates, index + 1));
    }

    private void created(ZooKeeperCalls.@Nullable Created created, @Nullable Throwable failure) {
        ZooKeeperSession opened;
        boolean ended;
        synchronized (this) {
            opened = this.session;
            ended = this.finished;
            if (created != null && opened != null) {
                this.lock = new ZooKeeperLock(
                        this.command.resource(),
                        this.command.requestId(),
                        opened,
                        created.path(),
                        created.stat().getCzxid(),
                        this.command.kind());
            }
            if (created != null) {
                this.createUnknown = false;
            }
            // Otherwise a create whose outcome is unknown stays unknown, however the attempt ended: a
            // clean-up that is still looking for its node must go on looking.
        }
        if (ended) {
            cleanUp();
            return;
        }
        if (failure != null || created == null) {
            this.result.completeExceptionally(this.backend.failure(
                    "Could not queue for lock '" + this.resource + "'", Objects.requireNonNull(failure)));
            return;
        }
        Objects.requireNonNull(opened).calls.children(this.parent, null).whenComplete(this::read);
    }

    /** Re-reads the children, one read at a time; a wake-up during a read asks for one more. */
    private void recheck() {
        ZooKeeperSession opened;
        synchronized (this) {
            opened = this.session;
            if (this.result.isDone() || this.lock == null || opened == null) {
                return;
            }
            if (this.checking) {
                this.checkAgain = true;
                return;
            }
            this.checking = true;
        }
        opened.calls.children(this.parent, null).whenComplete(this::read);
    }

    private void read(@Nullable List<String> names, @Nullable Throwable failure) {
        if (!this.result.isDone()) {
            ZooKeeperSession opened = Objects.requireNonNull(this.session);
            if (failure != null && opened.isEnded()) {
                // The session expired or was closed, and its node went with it.
                this.result.completeExceptionally(new LockBackendUnavailableException(
                        "The ZooKeeper session of lock '" + this.resource
                                + "' ended while it waited; its queue node went with it",
                        failure));
            } else if (failure != null) {
                // No answer: read again a quarter of the session later, or at the next wake-up.
                this.backend
                        .scheduler()
                        .schedule(this::recheck, Math.max(100, opened.ttlSeconds * 250), TimeUnit.MILLISECONDS);
            } else {
                decide(Objects.requireNonNull(names));
            }
        }
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

    private void decide(List<String> names) {
        ZooKeeperLock queued = Objects.requireNonNull(this.lock);
        if (this.givingUp) {
            return;
        }
        String own = queued.path.substring(this.parent.length() + 1);
        List<ZooKeeperPaths.Child> queue = ZooKeeperPaths.queue(names);
        int index = -1;
        for (int i = 0; i < queue.size(); i++) {
            if (queue.get(i).name().equals(own)) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            this.result.completeExceptionally(new LockBackendUnavailableException("The queue node of lock '"
                    + this.resource + "' was deleted while it waited (force-released, or its session expired)"));
            return;
        }
        for (ZooKeeperPaths.Child other : queue) {
            if (!other.name().equals(own) && other.requestId().equals(this.command.requestId())) {
                // Another session's node (or this one's as another kind) carries the same request id.
                refuse(
                        queued,
                        new LockException("Request id '" + this.command.requestId() + "' of lock '"
                                + this.resource + "' is in use by another session or as another kind of lock; use a new"
                                + " request id"));
                return;
            }
        }
        QueueWalk walk = new QueueWalk();
        for (int i = 0; i < index; i++) {
            walk.next(queue.get(i).kind());
        }
        LockKind kind = this.command.kind();
        switch (walk.standingOf(kind)) {
            case HOLDS -> {
                if (!queued.session.isTrusted()) {
                    // Its heartbeats went unanswered past its local deadline: a lock handed over now would be
                    // invalid from the start. Asks again once a heartbeat confirmed the session (or it ended).
                    this.backend.scheduler().schedule(this::recheck, 100, TimeUnit.MILLISECONDS);
                    return;
                }
                if (!this.backend.granted(queued)) {
                    this.result.completeExceptionally(new LockBackendUnavailableException(
                            "The ZooKeeper session or backend ended while lock '" + this.resource + "' was granted"));
                } else if (!this.result.complete(queued)) {
                    // The deadline or a cancellation came first: the caller never sees this lock.
                    this.backend.forget(queued);
                    cleanUp();
                }
            }
            case CONFLICTS ->
                refuse(
                        queued,
                        new LockPermitsMismatchException(QueueWalk.conflictMessage(
                                this.resource, kind, Objects.requireNonNull(walk.conflictingAhead(kind)))));
            case WAITS -> {
                if (!this.command.waitForRelease()) {
                    refuse(
                            queued,
                            new LockAcquisitionTimeoutException(
                                    "Lock '" + this.resource + "' is held by someone else"));
                    return;
                }
                watch(queued.session, queue, index);
            }
        }
    }

    /**
     * Ends the attempt with {@code refusal} once its node is deleted, so that the caller's next try
     * does not queue behind it and a reader of the queue never sees it after the refusal.
     */
    private void refuse(ZooKeeperLock queued, LockException refusal) {
        this.givingUp = true;
        this.backend
                .deleteNode(queued.session, queued.path, WriteOperation.RELEASE)
                .whenComplete((deleted, failure) -> this.result.completeExceptionally(refusal));
    }

    /** Watches what this node waits for; reads again at once when it is already gone. */
    private void watch(ZooKeeperSession opened, List<ZooKeeperPaths.Child> queue, int index) {
        LockKind kind = this.command.kind();
        if (kind.isSemaphore()) {
            // Any holder's release may admit a semaphore's waiter. The watch is set by a read of its own:
            // a release between the deciding read and this one fires no event, so a changed answer
            // means reading again now.
            java.util.Set<String> decidedOn = new java.util.HashSet<>();
            queue.forEach(child -> decidedOn.add(child.name()));
            opened.calls.children(this.parent, this.wake).whenComplete((now, failure) -> {
                if (failure != null) {
                    recheck();
                    return;
                }
                java.util.Set<String> seen = new java.util.HashSet<>();
                ZooKeeperPaths.queue(now).forEach(child -> seen.add(child.name()));
                if (!decidedOn.equals(seen)) {
                    recheck();
                }
            });
            return;
        }
        ZooKeeperPaths.Child awaited = null;
        for (int i = index - 1; i >= 0 && awaited == null; i--) {
            ZooKeeperPaths.Child ahead = queue.get(i);
            if (kind.mode() == LockMode.EXCLUSIVE || ahead.kind().mode() == LockMode.EXCLUSIVE) {
                awaited = ahead;
            }
        }
        String path = this.parent + "/" + Objects.requireNonNull(awaited).name();
        opened.calls.exists(path, this.wake).whenComplete((@Nullable Stat stat, @Nullable Throwable failure) -> {
            if (failure != null || stat == null) {
                recheck();
            }
        });
    }

    /** Ends the attempt: timer off; without the lock, the node goes too. */
    private void finish() {
        synchronized (this) {
            this.finished = true;
            if (this.deadline != null) {
                this.deadline.cancel(false);
            }
        }
        boolean holding = this.result.isDone() && !this.result.isCompletedExceptionally();
        if (!holding) {
            cleanUp();
        }
    }

    /** Deletes this attempt's node: by its name when it is known, else by looking for it. */
    private void cleanUp() {
        ZooKeeperLock queued;
        ZooKeeperSession opened;
        boolean unknown;
        synchronized (this) {
            queued = this.lock;
            opened = this.session;
            unknown = this.createUnknown;
        }
        if (queued != null) {
            this.backend.deleteNode(queued.session, queued.path, WriteOperation.RELEASE);
        } else if (unknown && opened != null && !opened.isEnded()) {
            find(opened).whenComplete((found, failure) -> {
                if (found != null) {
                    this.backend.deleteNode(opened, found.path(), WriteOperation.RELEASE);
                } else if (failure != null && !opened.isEnded()) {
                    this.backend.scheduler().schedule(this::cleanUp, 100, TimeUnit.MILLISECONDS);
                }
            });
        }
    }

    /** What the node says about its holder: JSON, like the other backends' holder records. */
    private byte[] holderRecord() {
        String instance =
                this.backend.instanceIdForRecords().replace("\\", "\\\\").replace("\"", "\\\"");
        return ("{\"instance\":\"" + instance + "\",\"acquiredAt\":\"" + Instant.now() + "\",\"ttlSeconds\":"
                        + this.command.ttlSeconds() + "}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
