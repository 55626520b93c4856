package dev.fencelock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * ZooKeeper's asynchronous calls as futures. The client answers on its one event thread; the
 * futures complete on {@code executor}, so what follows them never holds that thread up (it also
 * delivers the session's events).
 */
final class ZooKeeperCalls {

    private final ZooKeeper zooKeeper;

    private final Executor executor;

    ZooKeeperCalls(ZooKeeper zooKeeper, Executor executor) {
        this.zooKeeper = zooKeeper;
        this.executor = executor;
    }

    /** A created node: its full path (with the sequence number) and its stat ({@code czxid}). */
    record Created(String path, Stat stat) {}

    /** A read node: its data and stat. */
    record Read(byte[] data, Stat stat) {}

    CompletableFuture<Created> create(String path, byte[] data, List<ACL> acl, CreateMode mode) {
        CompletableFuture<Created> future = new CompletableFuture<>();
        this.zooKeeper.create(
                path,
                data,
                acl,
                mode,
                (rc, requested, ctx, name, stat) -> settle(future, rc, requested, () -> new Created(name, stat)),
                null);
        return future;
    }

    /** The node's stat, or {@code null} when there is none; {@code watcher} is set either way. */
    CompletableFuture<@Nullable Stat> exists(String path, @Nullable Watcher watcher) {
        CompletableFuture<@Nullable Stat> future = new CompletableFuture<>();
        this.zooKeeper.exists(
                path,
                watcher,
                (rc, requested, ctx, stat) -> {
                    if (rc == Code.NONODE.intValue()) {
                        deliver(() -> future.complete(null));
                    } else {
                        settle(future, rc, requested, () -> stat);
                    }
                },
                null);
        return future;
    }

    CompletableFuture<List<String>> children(String path, @Nullable Watcher watcher) {
        CompletableFuture<List<String>> future = new CompletableFuture<>();
        this.zooKeeper.getChildren(
                path, watcher, (rc, requested, ctx, children) -> settle(future, rc, requested, () -> children), null);
        return future;
    }

    CompletableFuture<Read> data(String path) {
        CompletableFuture<Read> future = new CompletableFuture<>();
        this.zooKeeper.getData(
                path,
                false,
                (rc, requested, ctx, data, stat) -> settle(future, rc, requested, () -> new Read(data, stat)),
                null);
        return future;
    }

    /** Deletes the node whatever its version; completes with whether it was there. */
    CompletableFuture<Boolean> delete(String path) {
        CompletableFuture<Boolean> future = new CompletableFuture<>();
        this.zooKeeper.delete(
                path,
                -1,
                (rc, requested, ctx) -> {
                    if (rc == Code.NONODE.intValue()) {
                        deliver(() -> future.complete(false));
                    } else {
                        settle(future, rc, requested, () -> true);
                    }
                },
                null);
        return future;
    }

    /** Makes the server this session talks to catch up with the leader: reads after it are current. */
    CompletableFuture<Void> sync(String path) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        this.zooKeeper.sync(path, (rc, requested, ctx) -> settle(future, rc, requested, () -> null), null);
        return future;
    }

    /** Runs {@code completion} on the executor, or here once the executor is shut down (the backend closed). */
    private void deliver(Runnable completion) {
        try {
            this.executor.execute(completion);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            completion.run();
        }
    }

    private interface Answer<T> {
        T get();
    }

    private <T> void settle(CompletableFuture<T> future, int rc, String path, Answer<T> answer) {
        if (rc == Code.OK.intValue()) {
            T value = answer.get();
            deliver(() -> future.complete(value));
        } else {
            KeeperException failure = KeeperException.create(Code.get(rc), path);
            deliver(() -> future.completeExceptionally(failure));
        }
    }

    /** The ZooKeeper error code of {@code failure}, or {@code null} when it is not ZooKeeper's. */
    static @Nullable Code code(@Nullable Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof java.util.concurrent.CompletionException
                || cause instanceof java.util.concurrent.ExecutionException) {
            cause = cause.getCause();
        }
        return (cause instanceof KeeperException keeper) ? keeper.code() : null;
    }

    /** Whether {@code failure} leaves the outcome of a write unknown: the connection went before its answer. */
    static boolean outcomeUnknown(@Nullable Throwable failure) {
        Code code = code(failure);
        return code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT;
    }
}
