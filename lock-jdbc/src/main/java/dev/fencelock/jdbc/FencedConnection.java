package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The connection handed out by {@link FencedDataSource}: a dynamic proxy that remembers which
 * fences were checked in the current transaction and wraps the statements it creates, so their
 * {@code execute*} calls can run the guard first.
 *
 * <p>Like the connection itself, this state is used by one thread at a time; the fences come from
 * the thread that executes the statement.
 */
final class FencedConnection implements InvocationHandler {

    private final Connection target;

    private final FenceGuard guard;

    private final Consumer<FencingTokenRejectedException> rejections;

    private final Connection proxy;

    /** Resource → token checked in the current transaction of this connection. */
    private final Map<String, Long> checked = new HashMap<>(4);

    private FencedConnection(Connection target, FenceGuard guard, Consumer<FencingTokenRejectedException> rejections) {
        this.target = target;
        this.guard = guard;
        this.rejections = rejections;
        this.proxy = (Connection) Proxy.newProxyInstance(
                FencedConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
    }

    static Connection wrap(Connection target, FenceGuard guard, Consumer<FencingTokenRejectedException> rejections) {
        return new FencedConnection(target, guard, rejections).proxy;
    }

    @Override
    public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
        switch (method.getName()) {
            case "equals":
                return self == args[0];
            case "hashCode":
                return System.identityHashCode(self);
            case "toString":
                return "FencedConnection[" + this.target + "]";
            case "unwrap":
                return ((Class<?>) args[0]).isInstance(self) ? self : this.target.unwrap((Class<?>) args[0]);
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(self) || this.target.isWrapperFor((Class<?>) args[0]);
            case "commit":
            case "rollback":
            case "setAutoCommit":
            case "close":
                // The transaction ends (or its fence row lock may be gone): check again next time.
                try {
                    return call(this.target, method, args);
                } finally {
                    this.checked.clear();
                }
            default:
                Object result = call(this.target, method, args);
                if (result instanceof Statement && method.getReturnType().isInterface()) {
                    // prepareStatement/prepareCall name their SQL up front; a plain Statement names it per execute.
                    String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : null;
                    return wrapStatement((Statement) result, method.getReturnType(), sql);
                }
                return result;
        }
    }

    private Object wrapStatement(Statement statement, Class<?> type, @Nullable String sql) {
        return Proxy.newProxyInstance(
                FencedConnection.class.getClassLoader(), new Class<?>[] {type}, new FencedStatement(statement, sql));
    }

    /** Runs the guard for every fence of this thread not yet checked in this transaction. */
    private void beforeExecute() throws SQLException {
        if (FencingContext.current().isEmpty()) {
            return;
        }
        List<Fence> fences = FencingContext.all();
        if (this.target.getAutoCommit()) {
            throw new LockException("Fenced write outside a transaction on lock '"
                    + fences.get(fences.size() - 1).resource()
                    + "': guard and write must commit together; run it in a transaction (@Transactional, or"
                    + " setAutoCommit(false) ... commit())");
        }
        if (fences.size() > 1) {
            // A fixed order keeps two transactions with the same fences from locking rows crosswise.
            fences = new ArrayList<>(fences);
            fences.sort(Comparator.comparing(Fence::resource));
        }
        for (Fence fence : fences) {
            Long token = this.checked.get(fence.resource());
            // A lease lost since the check must stop further writes locally (invariant 6).
            if (token == null || token != fence.token() || !fence.isValid()) {
                try {
                    this.guard.check(this.target, fence);
                } catch (FencingTokenRejectedException rejection) {
                    throw reported(rejection);
                }
                this.checked.put(fence.resource(), fence.token());
            }
        }
    }

    private FencingTokenRejectedException reported(FencingTokenRejectedException rejection) {
        this.rejections.accept(rejection);
        return rejection;
    }

    /** A row-fenced update that changed no row: a newer holder wrote the row with a larger token. */
    private FencingTokenRejectedException rowRejected(String fencedRow) {
        Fence fence = FencingContext.current().orElse(null);
        String resource = (fence != null) ? fence.resource() : "?";
        long token = (fence != null) ? fence.token() : -1;
        return reported(new FencingTokenRejectedException(
                resource,
                token,
                "Fenced update of " + fencedRow + " with fencing token " + token + " for lock '" + resource
                        + "' changed no row: a newer lock holder already wrote the row with a larger token (or"
                        + " the row was deleted). Roll back; this process no longer holds the lock."));
    }

    private static boolean changedNoRow(@Nullable Object result) {
        if (result instanceof Number count) {
            return count.longValue() == 0;
        }
        if (result instanceof int[] counts) {
            for (int count : counts) {
                if (count == 0) {
                    return true;
                }
            }
        }
        if (result instanceof long[] counts) {
            for (long count : counts) {
                if (count == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private static @Nullable Object call(Object target, Method method, @Nullable Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    /** A statement of this connection: runs the guard before anything executes. */
    private final class FencedStatement implements InvocationHandler {

        private final Statement target;

        /** {@code table.column} of a row-fenced prepared update, or {@code null}. */
        private final @Nullable String fencedRow;

        FencedStatement(Statement target, @Nullable String sql) {
            this.target = target;
            this.fencedRow = (sql != null) ? FencedRowComment.fencedRow(sql) : null;
        }

        @Override
        public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
            String name = method.getName();
            if (name.startsWith("execute")) {
                beforeExecute();
                Object result = call(this.target, method, args);
                String fencedRow = (this.fencedRow != null)
                        ? this.fencedRow
                        : (args != null && args.length > 0 && args[0] instanceof String sql)
                                ? FencedRowComment.fencedRow(sql)
                                : null;
                if (fencedRow != null && changedNoRow(result)) {
                    throw rowRejected(fencedRow);
                }
                return result;
            }
            switch (name) {
                case "getConnection":
                    return FencedConnection.this.proxy;
                case "equals":
                    return self == args[0];
                case "hashCode":
                    return System.identityHashCode(self);
                case "toString":
                    return "FencedStatement[" + this.target + "]";
                case "unwrap":
                    return ((Class<?>) args[0]).isInstance(self) ? self : this.target.unwrap((Class<?>) args[0]);
                case "isWrapperFor":
                    return ((Class<?>) args[0]).isInstance(self) || this.target.isWrapperFor((Class<?>) args[0]);
                default:
                    return call(this.target, method, args);
            }
        }
    }
}
