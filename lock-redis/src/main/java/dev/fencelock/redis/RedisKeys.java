package dev.fencelock.redis;

import dev.fencelock.LockMode;
import dev.fencelock.spi.LockKind;

/**
 * Where a resource's state lives. All keys of one resource share the hash tag {@code {resource}},
 * so one script may touch them all; the resource is escaped so that no resource's keys can be
 * another's ({@code a:b} and {@code a%3Ab}, {@code a}} and {@code a%7D}).
 *
 * <ul>
 *   <li>{@code <ns>:{r}:queue}: sorted set of request ids by token, holders and waiters in arrival order
 *   <li>{@code <ns>:{r}:entry:<requestId>}: one acquisition, {@code SET NX PX ttl} with the owner value
 *   <li>{@code <ns>:{r}:token}: the {@code INCR} counter tokens come from; never deleted, so a resource's
 *       tokens only grow while the server keeps its data
 *   <li>channel {@code <ns>:{r}:released}: a message per release, which wakes the resource's waiters
 * </ul>
 */
final class RedisKeys {

    private final String namespace;

    RedisKeys(String namespace) {
        this.namespace = namespace;
    }

    String namespace() {
        return this.namespace;
    }

    String queue(String resource) {
        return base(resource) + ":queue";
    }

    String counter(String resource) {
        return base(resource) + ":token";
    }

    String entryPrefix(String resource) {
        return base(resource) + ":entry:";
    }

    String entry(String resource, String requestId) {
        return entryPrefix(resource) + requestId;
    }

    String channel(String resource) {
        return base(resource) + ":released";
    }

    private String base(String resource) {
        return this.namespace + ":{" + escape(resource) + "}";
    }

    static String escape(String resource) {
        StringBuilder escaped = new StringBuilder(resource.length() + 8);
        for (int i = 0; i < resource.length(); i++) {
            char c = resource.charAt(i);
            switch (c) {
                case '%' -> escaped.append("%25");
                case ':' -> escaped.append("%3A");
                case '{' -> escaped.append("%7B");
                case '}' -> escaped.append("%7D");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /**
     * The value of an entry key: the owner (random per backend), the kind, and the instance that
     * holds it, one per line. Renewal and release compare the whole value, so only the owner that
     * wrote an entry can extend or delete it.
     */
    static String value(String owner, LockKind kind, String instanceId) {
        return owner + "\n" + kind.mode().name() + "\n" + kind.permits() + "\n" + instanceId;
    }

    /** The kind an entry value records. */
    static LockKind kindOf(String value) {
        String[] fields = value.split("\n", 4);
        return new LockKind(LockMode.valueOf(fields[1]), Integer.parseInt(fields[2]));
    }

    /** The owner an entry value records. */
    static String ownerOf(String value) {
        return value.split("\n", 2)[0];
    }

    /** The instance an entry value records. */
    static String instanceOf(String value) {
        String[] fields = value.split("\n", 4);
        return (fields.length == 4) ? fields[3] : "";
    }
}
