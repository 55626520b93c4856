package dev.fencelock.etcd;

import dev.fencelock.LockLostException;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a holder within one watch event that its key is gone: an operator's delete, another
 * instance's force-release, a revoked lease. One watch per backend over every lock key of the
 * namespace, deletions only; {@code renew()} is not the only way to find out.
 *
 * <p>A deletion at revision {@code R} of a key this backend holds with create revision {@code T <
 * R} deleted that very lock: a key is re-created only with a larger revision, and this backend
 * forgets its own locks before it deletes them. Deletions of keys not held here are remembered for
 * a while, because the watch can deliver a deletion before the put's answer registers the lock.
 * When the watch breaks, it resumes from the revision after the last it saw; when etcd compacted
 * that revision away, every held lock is checked by a read instead.
 */
final class HeldKeysWatch {

    private static final Logger logger = LoggerFactory.getLogger(HeldKeysWatch.class);

    /** Deletions of keys not held here that are remembered, for locks registered after the event. */
    private static final int REMEMBERED_DELETIONS = 8192;

    private final EtcdCalls calls;

    private final String locksPrefix;

    private final Map<String, EtcdLock> held;

    /** Key → revision of its deletion, oldest first, bounded. */
    private final LinkedHashMap<String, Long> deletions = new LinkedHashMap<>();

    /** The largest revision of a deletion that was forgotten to keep the memory bounded. */
    private long forgottenUpTo;

    /** The watch resumes after this revision. */
    private long seenUpTo;

    private Watch.@Nullable Watcher watcher;

    private boolean started;

    HeldKeysWatch(EtcdCalls calls, String locksPrefix, Map<String, EtcdLock> held) {
        this.calls = calls;
        this.locksPrefix = locksPrefix;
        this.held = held;
    }

    /**
     * Called once {@code lock} is in the held map: starts the watch with the first lock, and loses
     * the lock at once if its key's deletion was already seen.
     */
    void registered(EtcdLock lock) {
        Long deletedAt;
        boolean verify;
        synchronized (this) {
            if (!this.started) {
                this.started = true;
                // From the first lock's own revision: nothing that deletes it can be missed. Started off
                // this thread, which may be the client's event loop that the new stream needs.
                this.seenUpTo = lock.fencingToken() - 1;
                this.calls.scheduler().execute(this::watch);
            }
            deletedAt = this.deletions.get(lock.key);
            verify = this.forgottenUpTo > lock.fencingToken();
        }
        if (deletedAt != null && deletedAt > lock.fencingToken()) {
            lose(lock, deletedAt);
        } else if (verify) {
            // A deletion after this lock's creation may have been forgotten: ask etcd instead.
            verify(List.of(lock));
        }
    }

    /** Stops watching; the backend is closing. */
    synchronized void close() {
        Watch.Watcher current = this.watcher;
        this.watcher = null;
        if (current != null) {
            current.close();
        }
    }

    private synchronized void watch() {
        if (this.calls.isClosed()) {
            return;
        }
        WatchOption option = WatchOption.builder()
                .isPrefix(true)
                .withNoPut(true)
                .withRevision(this.seenUpTo + 1)
                .build();
        Watch.Watcher[] self = new Watch.Watcher[1];
        self[0] = this.calls
                .client()
                .getWatchClient()
                .watch(
                        EtcdCalls.bytes(this.locksPrefix),
                        option,
                        Watch.listener(
                                this::onResponse,
                                failure -> broken(self[0], failure),
                                () -> broken(self[0], new IllegalStateException("watch stream ended"))));
        this.watcher = self[0];
    }

    private void onResponse(WatchResponse response) {
        List<EtcdLock> lost = new ArrayList<>();
        List<Long> at = new ArrayList<>();
        synchronized (this) {
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() != WatchEvent.EventType.DELETE) {
                    continue;
                }
                KeyValue kv = event.getKeyValue();
                String key = kv.getKey().toString(StandardCharsets.UTF_8);
                long revision = kv.getModRevision();
                EtcdLock lock = this.held.get(key);
                if (lock != null && lock.fencingToken() < revision) {
                    lost.add(lock);
                    at.add(revision);
                } else {
                    remember(key, revision);
                }
                this.seenUpTo = Math.max(this.seenUpTo, revision);
            }
        }
        for (int i = 0; i < lost.size(); i++) {
            lose(lost.get(i), at.get(i));
        }
    }

    private void remember(String key, long revision) {
        this.deletions.remove(key);
        this.deletions.put(key, revision);
        if (this.deletions.size() > REMEMBERED_DELETIONS) {
            Map.Entry<String, Long> oldest =
                    this.deletions.entrySet().iterator().next();
            this.forgottenUpTo = Math.max(this.forgottenUpTo, oldest.getValue());
            this.deletions.remove(oldest.getKey());
        }
    }

    /** The stream failed or ended: resume after the last revision seen, or check everything if that is gone. */
    private void broken(Watch.@Nullable Watcher failed, Throwable failure) {
        synchronized (this) {
            if (failed == null || this.watcher != failed || this.calls.isClosed()) {
                return;
            }
            this.watcher = null;
        }
        failed.close();
        logger.debug("Watch on held lock keys failed, resuming: {}", failure.toString());
        boolean compacted = failure instanceof io.etcd.jetcd.common.exception.CompactedException
                || String.valueOf(failure.getMessage()).contains("compacted");
        this.calls
                .scheduler()
                .schedule(
                        () -> {
                            if (compacted) {
                                // Deletions may be gone from etcd's history: check the locks themselves.
                                resyncAndWatch();
                            } else {
                                watch();
                            }
                        },
                        200,
                        TimeUnit.MILLISECONDS);
    }

    private void resyncAndWatch() {
        if (this.calls.isClosed()) {
            return;
        }
        this.calls
                .timed(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(this.locksPrefix),
                                        GetOption.builder().withCountOnly(true).build()),
                        "reading the current revision")
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        this.calls.scheduler().schedule(this::resyncAndWatch, 1, TimeUnit.SECONDS);
                        return;
                    }
                    synchronized (this) {
                        this.seenUpTo = response.getHeader().getRevision();
                    }
                    watch();
                    verify(new ArrayList<>(this.held.values()));
                });
    }

    /** Reads each of {@code locks}' keys and loses those that are gone or were re-created. */
    private void verify(List<EtcdLock> locks) {
        for (EtcdLock lock : locks) {
            this.calls
                    .timed(
                            () -> this.calls.client().getKVClient().get(EtcdCalls.bytes(lock.key)),
                            "checking lock '" + lock.resource() + "'")
                    .whenComplete((response, failure) -> {
                        if (failure == null
                                && response.getKvs().stream()
                                        .noneMatch(kv -> kv.getCreateRevision() == lock.fencingToken())) {
                            lose(lock, response.getHeader().getRevision());
                        }
                    });
        }
    }

    private void lose(EtcdLock lock, long revision) {
        if (this.held.remove(lock.key, lock)) {
            lock.session.locks.remove(lock);
            lock.markLost(new LockLostException("Lock '" + lock.resource() + "' (token " + lock.fencingToken()
                    + ") was deleted from etcd by someone else by revision " + revision
                    + ": force-released by an operator or another instance, deleted by hand, or its lease was"
                    + " revoked"));
        }
    }
}
