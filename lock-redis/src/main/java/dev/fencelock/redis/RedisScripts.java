package dev.fencelock.redis;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.WriteOperation;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The compare-and-act scripts. Each runs atomically on the server, so an acquisition, a renewal or
 * a release never interleaves with another client's. Sent by digest ({@code EVALSHA}), and as text
 * when a server does not know it yet (a restarted or newly promoted one).
 */
final class RedisScripts {

    /** Live entries ahead of score {@code mine} (all of them when nil), oldest first; drops dead ones. */
    private static final String AHEAD = """
            local function ahead(q, prefix, mine)
              local out = {}
              local members = redis.call('ZRANGE', q, 0, -1, 'WITHSCORES')
              for i = 1, #members, 2 do
                local id, score = members[i], tonumber(members[i + 1])
                if mine ~= nil and score >= mine then break end
                local v = redis.call('GET', prefix .. id)
                if v then
                  table.insert(out, id)
                  table.insert(out, score)
                  table.insert(out, v)
                  table.insert(out, redis.call('PTTL', prefix .. id))
                else
                  redis.call('ZREM', q, id)
                end
              end
              return out
            end
            """;

    /**
     * KEYS: queue, counter, entry. ARGV: request id, value, ttl ms, entry prefix. Writes the entry
     * ({@code SET NX PX}) with a new token unless this owner's entry is there; returns {token, the
     * live entries ahead}, or {-1} when the request id is another owner's.
     */
    static final Script ENQUEUE = new Script(AHEAD + """
            local q, t, e = KEYS[1], KEYS[2], KEYS[3]
            local ttl = tonumber(ARGV[3])
            local current = redis.call('GET', e)
            local token = nil
            if current then
              if current ~= ARGV[2] then return {-1} end
              token = tonumber(redis.call('ZSCORE', q, ARGV[1]))
            end
            if not token then
              token = redis.call('INCR', t)
              redis.call('SET', e, ARGV[2], 'PX', ttl)
              redis.call('ZADD', q, token, ARGV[1])
            end
            if redis.call('PTTL', q) < ttl then redis.call('PEXPIRE', q, ttl) end
            local result = {token}
            for _, x in ipairs(ahead(q, ARGV[4], token)) do table.insert(result, x) end
            return result
            """, ScriptOutputType.MULTI);

    /** KEYS: queue, entry. ARGV: request id, value, entry prefix. {token, live entries ahead}, or {-2} when mine is gone. */
    static final Script CHECK = new Script(AHEAD + """
            if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {-2} end
            local token = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
            if not token then return {-2} end
            local result = {token}
            for _, x in ipairs(ahead(KEYS[1], ARGV[3], token)) do table.insert(result, x) end
            return result
            """, ScriptOutputType.MULTI);

    /** KEYS: queue, entry. ARGV: value, ttl ms. 1 when the entry was still this owner's and was extended. */
    static final Script RENEW = new Script("""
            if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
            redis.call('PEXPIRE', KEYS[2], ARGV[2])
            if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 1
            """, ScriptOutputType.INTEGER);

    /** KEYS: queue, entry. ARGV: request id, value, channel. Compare-and-delete; 1 when it deleted. */
    static final Script RELEASE = new Script("""
            if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
            redis.call('DEL', KEYS[2])
            redis.call('ZREM', KEYS[1], ARGV[1])
            redis.call('PUBLISH', ARGV[3], ARGV[1])
            return 1
            """, ScriptOutputType.INTEGER);

    /** KEYS: queue. ARGV: entry prefix. Every live entry, oldest first. */
    static final Script QUEUE = new Script(AHEAD + "return ahead(KEYS[1], ARGV[1], nil)\n", ScriptOutputType.MULTI);

    /** KEYS: queue. ARGV: entry prefix, channel. Deletes the oldest live entry; returns it, or {}. */
    static final Script FORCE_RELEASE = new Script(AHEAD + """
            local live = ahead(KEYS[1], ARGV[1], nil)
            if #live == 0 then return {} end
            redis.call('DEL', ARGV[1] .. live[1])
            redis.call('ZREM', KEYS[1], live[1])
            redis.call('PUBLISH', ARGV[2], live[1])
            return {live[1], live[2], live[3], live[4]}
            """, ScriptOutputType.MULTI);

    private final RedisAsyncCommands<String, String> commands;

    private final BackendEventListener events;

    RedisScripts(RedisAsyncCommands<String, String> commands, BackendEventListener events) {
        this.commands = commands;
        this.events = events;
    }

    /** Runs {@code script}; a write's round trip is reported as {@code operation} (null: not a write). */
    <T> CompletableFuture<T> run(Script script, @Nullable WriteOperation operation, String[] keys, String... args) {
        long sent = System.nanoTime();
        CompletableFuture<T> reply = this.commands
                .<T>evalsha(script.sha, script.type, keys, args)
                .toCompletableFuture()
                .exceptionallyCompose(failure -> (unwrap(failure) instanceof RedisNoScriptException)
                        ? this.commands
                                .<T>eval(script.text, script.type, keys, args)
                                .toCompletableFuture()
                        : CompletableFuture.failedFuture(unwrap(failure)));
        if (operation != null) {
            reply.thenRun(() -> this.events.committed(operation, Duration.ofNanos(System.nanoTime() - sent)));
        }
        return reply;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The reply of {@link #ENQUEUE} or {@link #CHECK}: the token, or -1/-2, and the live entries ahead. */
    record Standing(long token, List<Ahead> ahead) {

        static Standing parse(List<Object> reply) {
            long token = (Long) reply.get(0);
            List<Ahead> ahead = new java.util.ArrayList<>((reply.size() - 1) / 4);
            for (int i = 1; i + 3 < reply.size(); i += 4) {
                ahead.add(new Ahead((String) reply.get(i), (Long) reply.get(i + 1), (String) reply.get(i + 2), (Long)
                        reply.get(i + 3)));
            }
            return new Standing(token, ahead);
        }
    }

    /** A live entry: its request id, token, value and milliseconds left to live. */
    record Ahead(String requestId, long token, String value, long pttl) {}

    /** A script's text, its digest, and the shape of its reply. */
    static final class Script {

        final String text;

        final String sha;

        final ScriptOutputType type;

        Script(String text, ScriptOutputType type) {
            this.text = text;
            this.type = type;
            try {
                this.sha = HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException ex) {
                throw new IllegalStateException("SHA-1 is missing from this JVM", ex);
            }
        }
    }
}
