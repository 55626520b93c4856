package dev.fencelock.zookeeper;

import dev.fencelock.spi.QueueEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * An operator's read of a lock's queue: the nodes below the resource's node after a {@code sync},
 * oldest first, as the leader had them. A read that lost its answer (the connection went) is read
 * again, on the same session, until the operator's deadline: reading twice changes nothing.
 */
final class ZooKeeperQueueReads {

    /** One node of a queue as an operator sees it. */
    record Node(String path, QueueEntry entry) {}

    private ZooKeeperQueueReads() {}

    static CompletableFuture<List<Node>> read(
            ZooKeeperLockBackend backend, ZooKeeperSession session, String parent, long deadlineNanos) {
        return readOnce(session, parent).exceptionallyCompose(failure -> {
            if (!ZooKeeperCalls.outcomeUnknown(failure)
                    || session.isEnded()
                    || System.nanoTime() - deadlineNanos >= 0) {
                return CompletableFuture.failedFuture(failure);
            }
            return backend.retryLater(() -> read(backend, session, parent, deadlineNanos));
        });
    }

    private static CompletableFuture<List<Node>> readOnce(ZooKeeperSession session, String parent) {
        return session.calls
                .sync(parent)
                .thenCompose(synced -> session.calls.children(parent, null))
                .exceptionallyCompose(ex -> (ZooKeeperCalls.code(ex) == Code.NONODE)
                        ? CompletableFuture.completedFuture(List.of())
                        : CompletableFuture.failedFuture(ex))
                .thenCompose(names -> {
                    List<CompletableFuture<@Nullable Node>> reads = new ArrayList<>();
                    for (ZooKeeperPaths.Child child : ZooKeeperPaths.queue(names)) {
                        String path = parent + "/" + child.name();
                        reads.add(session.calls
                                .data(path)
                                .thenApply(read -> new Node(path, entry(child, read.data(), read.stat())))
                                .exceptionallyCompose(ex -> (ZooKeeperCalls.code(ex) == Code.NONODE)
                                        ? CompletableFuture.completedFuture(null)
                                        : CompletableFuture.failedFuture(ex)));
                    }
                    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                            .thenApply(all -> {
                                List<Node> nodes = new ArrayList<>();
                                for (CompletableFuture<@Nullable Node> read : reads) {
                                    Node node = read.join();
                                    if (node != null) {
                                        nodes.add(node);
                                    }
                                }
                                return nodes;
                            });
                });
    }

    private static QueueEntry entry(ZooKeeperPaths.Child child, byte @Nullable [] data, Stat stat) {
        String holder = (data != null) ? new String(data, StandardCharsets.UTF_8) : "";
        return new QueueEntry(child.requestId(), stat.getEphemeralOwner(), stat.getCzxid(), holder, child.kind());
    }
}
