package dev.fencelock.etcd;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch on a resource's key range, shared by every local waiter of that resource, feeding the
 * {@link QueueMirror} that decides for them.
 *
 * <p>The watch starts at the current revision, never in etcd's slow path for past revisions.
 * Once etcd confirms it, one linearizable read of the resource's keys seeds the mirror. If the
 * watch fails or is not confirmed in time, each waiter falls back to reading its predecessor,
 * which re-creates a watch.
 */
final class ResourceWatch {

    private static final Logger logger = LoggerFactory.getLogger(ResourceWatch.class);

    private final String prefix;

    private final EtcdCalls calls;

    /** The open watches of the backend by prefix; this one leaves it when it closes. */
    private final Map<String, ResourceWatch> watches;

    private final QueueMirror mirror;

    private final Watch.Watcher watcher;

    ResourceWatch(String prefix, QueueWaiter first, EtcdCalls calls, Map<String, ResourceWatch> watches) {
        this.prefix = prefix;
        this.calls = calls;
        this.watches = watches;
        this.mirror = new QueueMirror(first);
        WatchOption option = WatchOption.builder()
                .isPrefix(true)
                .withCreateNotify(true)
                .withRequireLeader(true)
                .build();
        // jetcd reports a stream that ended without an error only through onCompleted, and does not
        // resume it: the mirror would go silent, so that ends the watch like an error does.
        this.watcher = calls.client()
                .getWatchClient()
                .watch(
                        EtcdCalls.bytes(prefix),
                        option,
                        Watch.listener(
                                this::onResponse,
                                this::onError,
                                () -> onError(new IllegalStateException("watch stream ended"))));
        calls.scheduler()
                .schedule(
                        () -> {
                            if (!this.mirror.isSeeded()) {
                                onError(new TimeoutException("watch not confirmed within " + calls.requestTimeout()));
                            }
                        },
                        calls.requestTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    boolean isClosed() {
        return this.mirror.isClosed();
    }

    boolean isSeededAndOpen() {
        return this.mirror.isSeededAndOpen();
    }

    @Nullable
    Successor successorOf(long holder) {
        return this.mirror.successorOf(holder);
    }

    boolean subscribe(QueueWaiter waiter) {
        return this.mirror.subscribe(waiter);
    }

    void unsubscribe(QueueWaiter waiter) {
        if (this.mirror.unsubscribe(waiter)) {
            this.watches.remove(this.prefix, this);
            this.watcher.close();
        }
    }

    void decide(QueueWaiter waiter) {
        this.mirror.decide(waiter);
    }

    /** Closes the watch stream only; for the backend's close, which fails every waiter anyway. */
    void closeWatcher() {
        this.watcher.close();
    }

    private void onResponse(WatchResponse response) {
        List<Runnable> decisions = new ArrayList<>();
        boolean seed = this.mirror.onResponse(response.isCreatedNotify(), response.getEvents(), decisions);
        if (seed) {
            seed();
        }
        decisions.forEach(Runnable::run);
    }

    /** Reads the whole queue once the watch is confirmed, so no event after the read is missed. */
    private void seed() {
        GetOption all = GetOption.builder().isPrefix(true).withKeysOnly(true).build();
        this.calls
                .timed(
                        () -> this.calls.client().getKVClient().get(EtcdCalls.bytes(this.prefix), all),
                        "reading the queue of " + this.prefix)
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        onError(failure);
                        return;
                    }
                    List<Runnable> decisions = new ArrayList<>();
                    this.mirror.seed(response.getHeader().getRevision(), response.getKvs(), decisions);
                    decisions.forEach(Runnable::run);
                });
    }

    private void onError(Throwable failure) {
        logger.debug("Watch on {} failed: {}", this.prefix, failure.toString());
        List<QueueWaiter> orphaned = this.mirror.fail();
        if (orphaned == null) {
            return;
        }
        this.watches.remove(this.prefix, this);
        this.watcher.close();
        // Each waiter reads its predecessor instead, and joins or starts a new watch if still queued.
        orphaned.forEach(QueueWaiter::watchFailed);
    }
}
