package dev.fencelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/** Sits under a {@link FencedDataSource} and records the SQL its connections prepare or execute. */
final class RecordingDataSource {

    final List<String> statements = new CopyOnWriteArrayList<>();

    final DataSource dataSource;

    RecordingDataSource(DataSource target) {
        this.dataSource = (DataSource) proxy(DataSource.class, target);
    }

    /** How many recorded statements contain {@code fragment}. */
    long count(String fragment) {
        return this.statements.stream().filter(sql -> sql.contains(fragment)).count();
    }

    private Object proxy(Class<?> type, Object target) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            if (args != null && args.length > 0 && args[0] instanceof String sql && isSql(method)) {
                this.statements.add(sql);
            }
            Object result = invoke(target, method, args);
            if (result instanceof Connection) {
                return proxy(Connection.class, result);
            }
            return result;
        });
    }

    private static boolean isSql(Method method) {
        return method.getName().startsWith("prepare") || method.getName().startsWith("execute");
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
