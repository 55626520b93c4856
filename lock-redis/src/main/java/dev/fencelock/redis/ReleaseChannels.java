package dev.fencelock.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The release channels this backend listens to: one subscription per resource that has local
 * waiters, shared by them, ended when the last of them stops waiting. A message (one per release)
 * wakes every local waiter of the resource to re-read its standing; nobody polls.
 *
 * <p>A waiter subscribes before it first reads the queue, so a release between its read and its
 * subscription cannot go unnoticed. Messages published while the connection was down are lost;
 * a waiter also re-reads when the entry ahead of it expires, so it never waits longer than that.
 */
final class ReleaseChannels extends RedisPubSubAdapter<String, String> {

    private final StatefulRedisPubSubConnection<String, String> connection;

    private final Executor wakeups;

    private final Map<String, Subscription> subscriptions = new HashMap<>();

    ReleaseChannels(StatefulRedisPubSubConnection<String, String> connection, Executor wakeups) {
        this.connection = connection;
        this.wakeups = wakeups;
        connection.addListener(this);
    }

    /** Wakes {@code waiter} on each message of {@code channel}; completes once the server confirmed the subscription. */
    synchronized CompletableFuture<Void> register(String channel, Runnable waiter) {
        Subscription subscription = this.subscriptions.get(channel);
        if (subscription != null && subscription.confirmed.isCompletedExceptionally()) {
            // A SUBSCRIBE that failed (the connection was down) is sent again, not handed to every later waiter.
            subscription = new Subscription(subscribe(channel), subscription.waiters);
            this.subscriptions.put(channel, subscription);
        }
        if (subscription == null) {
            subscription = new Subscription(subscribe(channel), ConcurrentHashMap.newKeySet());
            this.subscriptions.put(channel, subscription);
        }
        subscription.waiters.add(waiter);
        return subscription.confirmed;
    }

    private CompletableFuture<Void> subscribe(String channel) {
        return this.connection.async().subscribe(channel).toCompletableFuture().thenApply(ignored -> null);
    }

    /** Stops waking {@code waiter}; the last waiter of a channel ends its subscription. */
    synchronized void unregister(String channel, Runnable waiter) {
        Subscription subscription = this.subscriptions.get(channel);
        if (subscription != null && subscription.waiters.remove(waiter) && subscription.waiters.isEmpty()) {
            this.subscriptions.remove(channel);
            // Commands on one connection run in order: a later SUBSCRIBE of this channel comes after it.
            this.connection.async().unsubscribe(channel);
        }
    }

    /** Channels with a subscription, for health details. */
    synchronized int size() {
        return this.subscriptions.size();
    }

    @Override
    public void message(String channel, String message) {
        Subscription subscription;
        synchronized (this) {
            subscription = this.subscriptions.get(channel);
        }
        if (subscription != null) {
            for (Runnable waiter : subscription.waiters) {
                this.wakeups.execute(waiter);
            }
        }
    }

    void close() {
        this.connection.close();
    }

    private static final class Subscription {

        final CompletableFuture<Void> confirmed;

        final Set<Runnable> waiters;

        Subscription(CompletableFuture<Void> confirmed, Set<Runnable> waiters) {
            this.confirmed = confirmed;
            this.waiters = waiters;
        }
    }
}
