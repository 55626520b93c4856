package dev.fencelock.jdbc;

import dev.fencelock.FencingTokenRejectedException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections present the current thread's fences to the database
 * before the first statement of each transaction.
 *
 * <p>Wrap the application's pool with it and write as usual (JdbcTemplate, JPA, jOOQ, MyBatis):
 *
 * <pre>{@code
 * DataSource dataSource = new FencedDataSource(pool, FenceGuard.create());
 * try (LockLease lease = client.acquire(LockRequest.of("stock:42"));
 *         FencingContext.Scope fence = FencingContext.open(lease)) {
 *     // in a transaction: the first statement runs the guard first, on the same connection
 * }
 * }</pre>
 *
 * <p>What its connections do:
 *
 * <ul>
 *   <li>No fence in {@link dev.fencelock.FencingContext} on the executing thread: every call goes
 *       straight to the real connection.
 *   <li>A fence present, in a transaction: before the first {@code execute*} of any statement
 *       (reads included, so what the transaction reads is already serialised behind the fence row
 *       lock), {@link FenceGuard#check} runs for each fenced resource not yet checked in this
 *       transaction. {@code commit}, {@code rollback} (also to a savepoint), {@code setAutoCommit}
 *       and {@code close} forget what was checked, so the next transaction checks again.
 *   <li>A fence present, in auto-commit mode: every statement is refused with a {@link
 *       dev.fencelock.LockException}, because the guard would commit on its own, separately from
 *       the write it is meant to protect. Reads are refused too: JDBC cannot tell a read from an
 *       {@code INSERT … RETURNING} run through {@code executeQuery}.
 *   <li>The check of a transaction ends wherever the transaction ends, also through SQL ({@code
 *       COMMIT}, implicit commits, procedures); SQL that would end it before its last statement is
 *       refused under a fence (docs/fencing.md lists every JDBC path).
 * </ul>
 *
 * <p>It is an ordinary {@code DataSource}, so Spring's {@code DataSourceUtils}, {@code
 * TransactionAwareDataSourceProxy} and Hibernate obtain fenced connections from it like any other.
 * Every JDBC object reachable from its connections is fenced too; unwrapping one to the driver's
 * own types is refused while the thread works under a fence. Unwrapping the data source itself
 * reaches the pool, whose connections are not fenced.
 */
public final class FencedDataSource implements DataSource {

    private final DataSource target;

    private final FenceGuard guard;

    private final Consumer<FencingTokenRejectedException> rejections;

    public FencedDataSource(DataSource target, FenceGuard guard) {
        this(target, guard, rejection -> {});
    }

    /**
     * A fenced data source that also tells {@code rejections} of every write it refuses (for
     * metrics and audit) before the exception reaches the caller: guard refusals, and row-fenced
     * updates ({@link FencedRowComment}) that changed no row.
     */
    public FencedDataSource(DataSource target, FenceGuard guard, Consumer<FencingTokenRejectedException> rejections) {
        this.target = target;
        this.guard = guard;
        this.rejections = rejections;
    }

    /** The wrapped data source. */
    public DataSource getTarget() {
        return this.target;
    }

    /** The guard its connections run. */
    public FenceGuard getGuard() {
        return this.guard;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return FencedConnection.wrap(this.target.getConnection(), this.guard, this.rejections);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return FencedConnection.wrap(this.target.getConnection(username, password), this.guard, this.rejections);
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return this.target.unwrap(type);
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
        return "FencedDataSource[" + this.target + ", " + this.guard + "]";
    }
}
