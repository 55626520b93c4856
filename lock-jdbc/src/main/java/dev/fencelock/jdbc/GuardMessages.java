package dev.fencelock.jdbc;

import dev.fencelock.FencingTokenRejectedException;
import org.jspecify.annotations.Nullable;

/** The fence guard's messages: what was refused, why, and what the user can do next. */
final class GuardMessages {

    private GuardMessages() {}

    static String tooLong(FenceTable table, @Nullable String scope, String resource, int length) {
        String what = (scope != null)
                ? "With scope '" + scope + "', the fence row of lock resource '" + preview(resource) + "' is "
                : "Lock resource '" + preview(resource) + "' is ";
        return what + length + " characters, longer than the resource column of fence table '" + table + "' ("
                + table.resourceLength() + "); nothing was written. Shorten the lock key (or the scope) or"
                + " widen the column and the guard's resourceLength together.";
    }

    static String missingTable(FenceTable table, FenceDialect dialect) {
        return "Fence table '" + table + "' does not exist in this " + dialect.displayName()
                + " database. Create it in a migration (Flyway/Liquibase) with: " + dialect.createTableSql(table)
                + " -- or let FenceLock create it at startup (initialize-schema / FenceGuard.createTableIfMissing).";
    }

    static String rejection(FenceTable table, String resource, long token, @Nullable Long stored) {
        String newer = (stored != null)
                ? "a newer lock holder already wrote with token " + stored
                : "a newer lock holder already wrote";
        return "Fencing token " + token + " for '" + preview(resource) + "' was refused by fence table '" + table
                + "': " + newer + ". This process lost the lock (e.g. it was paused past its lease);"
                + " roll back the transaction and do not retry with the same lock.";
    }

    static FencingTokenRejectedException rejected(
            FenceTable table, String resource, long token, @Nullable Long stored) {
        return new FencingTokenRejectedException(
                resource,
                token,
                stored,
                rejection(table, resource, token, stored),
                FencingTokenRejectedException.RefusedBy.FENCE_TABLE);
    }

    static FencingTokenRejectedException lost(String resource, long token) {
        return new FencingTokenRejectedException(
                resource,
                token,
                "Lock on '" + preview(resource) + "' is no longer held (lease lost, released or expired);"
                        + " refused the write with fencing token " + token
                        + " before it reached the database. Roll back and acquire the lock again.",
                FencingTokenRejectedException.RefusedBy.CLIENT);
    }

    static String preview(String resource) {
        return (resource.length() > 60) ? resource.substring(0, 60) + "…" : resource;
    }
}
