package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.jpa.FencedRowComment;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DataSource} the auto-configuration puts in place of each {@code DataSource} bean: a
 * {@link FencedDataSource} whose refusals are reported (counted and audited) on their way to the
 * caller.
 *
 * <p>{@link FencedDataSource} cannot tell anyone that it refused a write, so this layer watches the
 * {@code execute*} calls of its statements for {@link FencingTokenRejectedException}. It also
 * completes row-level fencing of JPA entities: an update that {@code
 * dev.fencelock.jpa.FencingStatementInspector} made conditional on the token (it carries a {@link
 * FencedRowComment}) and that changed no row becomes a {@link FencingTokenRejectedException},
 * instead of the optimistic-locking failure Hibernate would report.
 *
 * <p>{@link #unwrap(Class)} reaches the {@link FencedDataSource} and the pool behind it, e.g.
 * {@code dataSource.unwrap(HikariDataSource.class)}.
 */
public final class ReportingFencedDataSource implements DataSource {

    /** Returned by {@link #objectMethod} for calls that go to the target. */
    private static final Object NOT_HANDLED = new Object();

    private final FencedDataSource target;

    private final Consumer<FencingTokenRejectedException> rejections;

    public ReportingFencedDataSource(FencedDataSource target, Consumer<FencingTokenRejectedException> rejections) {
        this.target = target;
        this.rejections = rejections;
    }

    /** The fenced data source whose refusals are reported. */
    public FencedDataSource getTarget() {
        return this.target;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return new ReportingConnection(this.target.getConnection()).proxy;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return new ReportingConnection(this.target.getConnection(username, password)).proxy;
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : this.target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || this.target.isWrapperFor(type);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return this.target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        this.target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        this.target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return this.target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return this.target.getParentLogger();
    }

    @Override
    public String toString() {
        return "ReportingFencedDataSource[" + this.target + "]";
    }

    private static @Nullable Object call(Object target, Method method, @Nullable Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    private static @Nullable Object objectMethod(Object self, Object target, Method method, @Nullable Object[] args)
            throws Throwable {
        switch (method.getName()) {
            case "equals":
                return self == args[0];
            case "hashCode":
                return System.identityHashCode(self);
            case "toString":
                return "Reporting[" + target + "]";
            case "unwrap":
                return ((Class<?>) args[0]).isInstance(self) ? self : call(target, method, args);
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(self) || (Boolean) call(target, method, args);
            default:
                return NOT_HANDLED;
        }
    }

    private final class ReportingConnection implements InvocationHandler {

        private final Connection target;

        private final Connection proxy;

        ReportingConnection(Connection target) {
            this.target = target;
            this.proxy = (Connection) Proxy.newProxyInstance(
                    ReportingFencedDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
        }

        @Override
        public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
            Object handled = objectMethod(self, this.target, method, args);
            if (handled != NOT_HANDLED) {
                return handled;
            }
            Object result = call(this.target, method, args);
            if (result instanceof Statement statement && method.getReturnType().isInterface()) {
                String fencedRow = (args != null && args.length > 0 && args[0] instanceof String sql)
                        ? FencedRowComment.fencedRow(sql)
                        : null;
                return Proxy.newProxyInstance(
                        ReportingFencedDataSource.class.getClassLoader(),
                        new Class<?>[] {method.getReturnType()},
                        new ReportingStatement(statement, this.proxy, fencedRow));
            }
            return result;
        }
    }

    private final class ReportingStatement implements InvocationHandler {

        private final Statement target;

        private final Connection connection;

        /** {@code table.column} of a row-fenced update, or {@code null}. */
        private final @Nullable String fencedRow;

        ReportingStatement(Statement target, Connection connection, @Nullable String fencedRow) {
            this.target = target;
            this.connection = connection;
            this.fencedRow = fencedRow;
        }

        @Override
        public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
            Object handled = objectMethod(self, this.target, method, args);
            if (handled != NOT_HANDLED) {
                return handled;
            }
            if (method.getName().equals("getConnection")) {
                return this.connection;
            }
            if (!method.getName().startsWith("execute")) {
                return call(this.target, method, args);
            }
            Object result;
            try {
                result = call(this.target, method, args);
            } catch (FencingTokenRejectedException ex) {
                ReportingFencedDataSource.this.rejections.accept(ex);
                throw ex;
            }
            if (this.fencedRow != null && changedNoRow(result)) {
                FencingTokenRejectedException rejection = rowRejected(this.fencedRow);
                ReportingFencedDataSource.this.rejections.accept(rejection);
                throw rejection;
            }
            return result;
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

        private static FencingTokenRejectedException rowRejected(String fencedRow) {
            Fence fence = FencingContext.current().orElse(null);
            String resource = (fence != null) ? fence.resource() : "?";
            long token = (fence != null) ? fence.token() : -1;
            return new FencingTokenRejectedException(
                    resource,
                    token,
                    "Fenced update of " + fencedRow + " with fencing token " + token + " for lock '" + resource
                            + "' changed no row: a newer lock holder already wrote the row with a larger token (or"
                            + " the row was deleted). Roll back; this process no longer holds the lock.");
        }
    }
}
