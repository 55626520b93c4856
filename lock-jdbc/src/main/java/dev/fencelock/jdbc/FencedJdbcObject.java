package dev.fencelock.jdbc;

import java.io.OutputStream;
import java.io.Writer;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLXML;
import org.jspecify.annotations.Nullable;

/**
 * A JDBC object reached from a fenced connection: a result set, the database metadata, a large
 * object, an array. Everything it hands out is fenced in turn, so no driver object that could
 * reach the database past the guard escapes: a result set's statement, the metadata's connection,
 * the result sets of both. The methods that write through it (an updatable result set's row
 * changes, a large object's setters) run the guard first.
 */
class FencedJdbcObject implements InvocationHandler {

    final FencedConnection connection;

    final Object target;

    /** The fenced statement a result set came from, or {@code null}. */
    private final @Nullable Object statement;

    FencedJdbcObject(FencedConnection connection, Object target, @Nullable Object statement) {
        this.connection = connection;
        this.target = target;
        this.statement = statement;
    }

    /** A proxy of {@code target} for its interface {@code type}, fenced by this object's rules. */
    static Object proxy(Class<?> type, InvocationHandler handler) {
        return Proxy.newProxyInstance(FencedJdbcObject.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    @Override
    public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
        String name = method.getName();
        switch (name) {
            case "equals":
                return self == args[0];
            case "hashCode":
                return System.identityHashCode(self);
            case "toString":
                return "Fenced[" + this.target + "]";
            case "unwrap":
                return this.connection.unwrap(self, this.target, (Class<?>) args[0]);
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(self)
                        || this.connection.mayUnwrap(this.target, (Class<?>) args[0]);
            case "getConnection":
                return this.connection.proxy();
            case "getStatement":
                if (this.statement != null) {
                    return this.statement;
                }
                break;
            default:
                break;
        }
        try {
            if (writesThrough(name)) {
                this.connection.beforeDirectWrite();
            }
            Object result = call(this.target, method, args);
            if (result instanceof OutputStream || result instanceof Writer) {
                // A large object's stream writes to the server later, as the caller writes to it.
                return FencedLargeObjectStream.of(result, this.connection);
            }
            return this.connection.fenced(result, method.getReturnType(), self);
        } catch (SQLException ex) {
            this.connection.failed();
            throw ex;
        }
    }

    /** Whether calling {@code name} on this object writes to the database without a statement the guard sees. */
    private boolean writesThrough(String name) {
        if (this.target instanceof ResultSet) {
            return name.equals("updateRow") || name.equals("insertRow") || name.equals("deleteRow");
        }
        if (this.target instanceof Blob || this.target instanceof Clob || this.target instanceof SQLXML) {
            // PostgreSQL's large objects write to the server as they are set.
            return name.startsWith("set") || name.equals("truncate");
        }
        return false;
    }

    static @Nullable Object call(Object target, Method method, @Nullable Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
