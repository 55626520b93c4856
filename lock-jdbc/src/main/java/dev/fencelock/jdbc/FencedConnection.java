package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLXML;
import java.sql.Statement;
import java.sql.Wrapper;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The connection handed out by {@link FencedDataSource}: a dynamic proxy that runs the guard before
 * the first statement of each transaction that works under a fence, and knows where each
 * transaction ends, whether through JDBC ({@code commit}, {@code rollback}, {@code setAutoCommit},
 * {@code close}) or through SQL ({@code COMMIT}, implicit commits, procedures; see {@link
 * TransactionBoundary}). Every JDBC object it hands out is fenced too ({@link FencedStatement},
 * {@link FencedJdbcObject}).
 *
 * <p>Like the connection itself, this state is used by one thread at a time; the fences come from
 * the thread that executes the statement.
 */
final class FencedConnection implements InvocationHandler {

    private final Connection target;

    private final FenceGuard guard;

    private final Consumer<FencingTokenRejectedException> rejections;

    private final Connection proxy;

    /** The current transaction's fences; {@code null} until the guard first runs in it. */
    private @Nullable FencedTransaction transaction;

    /** The connection's read-only flag as last set through this proxy; {@code null} until known. */
    private @Nullable Boolean readOnly;

    private @Nullable SqlReader reader;

    /** Whether this session may still hold a fence this connection set (MariaDB's outlive the transaction). */
    private boolean sessionFenceSet;

    /** Whether this connection bounded its session's idle transactions (MariaDB's bound outlives the transaction). */
    private boolean idleBounded;

    private FencedConnection(Connection target, FenceGuard guard, Consumer<FencingTokenRejectedException> rejections) {
        this.target = target;
        this.guard = guard;
        this.rejections = rejections;
        this.proxy = (Connection) FencedJdbcObject.proxy(Connection.class, this);
    }

    static Connection wrap(Connection target, FenceGuard guard, Consumer<FencingTokenRejectedException> rejections) {
        return new FencedConnection(target, guard, rejections).proxy;
    }

    Connection proxy() {
        return this.proxy;
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
                return unwrap(self, this.target, (Class<?>) args[0]);
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(self) || mayUnwrap(this.target, (Class<?>) args[0]);
            case "commit":
                confirmRides();
                return endingWith(method, args);
            case "setAutoCommit":
                if (Boolean.TRUE.equals(args[0]) && !this.target.getAutoCommit()) {
                    confirmRides(); // switching auto-commit on commits the transaction
                }
                return endingWith(method, args);
            case "close":
            case "endRequest":
                // The session goes back to a pool or to other code: no fence of this thread may stay in it.
                try {
                    clearSessionFence();
                } catch (SQLException aborted) {
                    // The connection was aborted instead, so its pool discards it; closing it is all that is left.
                }
                return endingWith(method, args);
            case "rollback":
            case "abort":
                // A rollback to a savepoint may release the fence row lock too: check again next time.
                return endingWith(method, args);
            case "setReadOnly":
                Object result = FencedJdbcObject.call(this.target, method, args);
                this.readOnly = (Boolean) args[0];
                return result;
            case "prepareStatement":
            case "prepareCall":
                Statement prepared = (Statement) FencedJdbcObject.call(this.target, method, args);
                return statement(prepared, method.getReturnType(), (String) args[0]);
            default:
                try {
                    return fenced(FencedJdbcObject.call(this.target, method, args), method.getReturnType(), null);
                } catch (SQLException ex) {
                    failed();
                    throw ex;
                }
        }
    }

    private @Nullable Object endingWith(Method method, @Nullable Object[] args) throws Throwable {
        try {
            return FencedJdbcObject.call(this.target, method, args);
        } finally {
            endTransaction();
        }
    }

    /**
     * What {@code result} becomes when it leaves this connection or one of its objects: fenced if it
     * can reach the database, as it is otherwise.
     *
     * @param owner the fenced object that returned it (a result set's statement), or {@code null}
     */
    @Nullable
    Object fenced(@Nullable Object result, Class<?> declared, @Nullable Object owner) {
        // Large objects are not Wrappers, yet PostgreSQL's write to the server as their setters run.
        if (result instanceof Blob || result instanceof Clob || result instanceof SQLXML) {
            Class<?> lob = (result instanceof NClob)
                    ? NClob.class
                    : (result instanceof Clob) ? Clob.class : (result instanceof Blob) ? Blob.class : SQLXML.class;
            return FencedJdbcObject.proxy(lob, new FencedJdbcObject(this, result, null));
        }
        if (result == null || !(result instanceof Wrapper || result instanceof Array)) {
            return result;
        }
        if (result instanceof Connection) {
            return this.proxy;
        }
        if (result instanceof Statement statement) {
            return statement(
                    statement,
                    declared.isInstance(result) && declared.isInterface() ? declared : Statement.class,
                    null);
        }
        if (result instanceof ResultSet) {
            Object statement = (owner instanceof Statement) ? owner : null;
            return FencedJdbcObject.proxy(ResultSet.class, new FencedJdbcObject(this, result, statement));
        }
        Class<?> type = (result instanceof DatabaseMetaData)
                ? DatabaseMetaData.class
                : (result instanceof Array) ? Array.class : null;
        return (type != null) ? FencedJdbcObject.proxy(type, new FencedJdbcObject(this, result, null)) : result;
    }

    private Object statement(Statement statement, Class<?> type, @Nullable String sql) {
        Class<?> proxied =
                (type == Statement.class || type == PreparedStatement.class || type == CallableStatement.class)
                        ? type
                        : Statement.class;
        FencedStatement handler = new FencedStatement(this, statement, sql);
        Object proxy = FencedJdbcObject.proxy(proxied, handler);
        handler.setProxy(proxy);
        return proxy;
    }

    /**
     * {@code target.unwrap(type)}, refused under a fence when it would hand out the driver's own
     * object: its API (PostgreSQL's COPY and large objects, say) writes past the guard.
     */
    Object unwrap(Object self, Object target, Class<?> type) throws SQLException {
        if (type.isInstance(self)) {
            return self;
        }
        if (FencingContext.current().isEmpty()) {
            clearSessionFence();
        }
        if (FencingContext.current().isPresent()) {
            throw new LockException("Refused to unwrap a fenced JDBC object to " + type.getName()
                    + " while this thread works under a lock: the driver's own object writes past the fence guard."
                    + " Use JDBC statements under the lock, or unwrap outside it.");
        }
        return ((Wrapper) target).unwrap(type);
    }

    boolean mayUnwrap(Object target, Class<?> type) throws SQLException {
        return ((Wrapper) target).isWrapperFor(type);
    }

    /** What running {@code texts} (one text, or a batch) does to the transaction. */
    TransactionBoundary.Effect effectOf(List<String> texts) throws SQLException {
        if (this.reader == null) {
            this.reader = this.guard.reader(this.target);
        }
        return this.reader.effectOf(texts);
    }

    /** Whether executing statements here needs to know their effect on the transaction at all. */
    boolean tracksStatements() {
        return this.transaction != null
                || this.sessionFenceSet
                || FencingContext.current().isPresent();
    }

    /** Runs before SQL with {@code effect} executes: refuses, confirms rides, and runs the guard as needed. */
    void beforeExecute(TransactionBoundary.Effect effect, @Nullable String sql) throws SQLException {
        boolean fenced = FencingContext.current().isPresent();
        if (!fenced) {
            clearSessionFence(); // the fence that set it is gone from this thread
        }
        if (fenced && effect.endsBeforeLast()) {
            throw new LockException("Refused SQL in which a statement may end the transaction before the last one"
                    + " (a COMMIT, an implicit commit, a statement the guard does not know) while this thread works"
                    + " under a lock: the statements after it would run in a transaction the fence guard never saw."
                    + " Run them one by one" + quoted(sql));
        }
        if (fenced && effect.refusal() != null) {
            throw new LockException(
                    "Refused SQL while this thread works under a lock: " + effect.refusal() + quoted(sql));
        }
        if (fenced && effect.procedure() && !this.guard.allowsProcedureCalls()) {
            throw new LockException("Refused a procedure call while this thread works under a lock: on this database"
                    + " a procedure may commit and go on writing within the one statement, where the fence guard"
                    + " cannot check it. Call it outside the lock, or, if the procedures called under locks never"
                    + " commit or write only protected tables, allow procedure calls on the fence guard"
                    + " (fencelock.fencing.jdbc.allow-procedure-calls)" + quoted(sql));
        }
        if (effect.last() == TransactionBoundary.COMMIT) {
            confirmRides();
        }
        if (fenced && effect.writes()) {
            guardFences(effect.readsOnly());
        }
    }

    /** Runs after SQL with {@code effect} was sent, whether it succeeded or not. */
    void afterExecute(TransactionBoundary.Effect effect) {
        if (effect.last().ends() || effect.endsBeforeLast()) {
            endTransaction();
        }
    }

    /**
     * A statement or another call that reaches the server failed: the server may have rolled the
     * whole transaction back (a deadlock victim, a lock wait timeout with rollback), releasing the
     * fence row, while the connection stays usable. The next statement presents the fences again.
     */
    void failed() {
        FencedTransaction current = this.transaction;
        if (current != null) {
            current.failed();
        }
    }

    /** Whether this connection's session has an open transaction that wrote (asked of the server). */
    boolean hasOpenWritingTransaction() throws SQLException {
        return this.guard.dialect(this.target).hasOpenWritingTransaction(this.target);
    }

    /** Whether {@code failure} says this connection's session is gone, and its transaction with it. */
    boolean isGone(SQLException failure) throws SQLException {
        String state = failure.getSQLState();
        return (state != null && state.startsWith("08")) || this.target.isClosed();
    }

    /**
     * The fence table as this connection's session resolves it now, with the database's URL:
     * transactions ride only on locks in the same table. Asked only when a transaction would ride.
     */
    String fenceTableIdentity() throws SQLException {
        String url = this.target.getMetaData().getURL();
        int parameters = (url != null) ? url.indexOf('?') : -1;
        String database = (parameters < 0) ? String.valueOf(url) : url.substring(0, parameters);
        return database + "/" + this.guard.dialect(this.target).tableIdentity(this.target, this.guard.table());
    }

    private static String quoted(@Nullable String sql) {
        if (sql == null) {
            return ".";
        }
        String shown = (sql.length() > 120) ? sql.substring(0, 120) + "…" : sql;
        return ": " + shown.replace('\n', ' ').replace('\r', ' ');
    }

    /** Before a write that no statement carries (an updatable result set, a large object). */
    void beforeDirectWrite() throws SQLException {
        if (FencingContext.current().isPresent()) {
            guardFences(false);
        }
    }

    /**
     * Runs the guard for every fence of this thread not yet established in this transaction.
     *
     * <p>Only exclusive locks are presented. Readers of a shared lock, and holders of a semaphore's
     * permits, hold together: presenting their tokens would make the one with the larger token
     * refuse the others. Under nothing but such locks, SQL that only reads ({@code readsOnly}) runs
     * unguarded and anything else is refused: no token of theirs could refuse a stale writer.
     */
    private void guardFences(boolean readsOnly) throws SQLException {
        List<Fence> all = FencingContext.all();
        List<Fence> fences = all.stream().filter(Fence::fencesWrites).toList();
        if (fences.isEmpty()) {
            if (readsOnly) {
                return;
            }
            throw new LockException("Refused SQL that may write under the shared lock or semaphore permit of '"
                    + all.get(all.size() - 1).resource() + "': its holders hold together, so no fencing token"
                    + " of theirs can make the database refuse a stale writer. Take the lock EXCLUSIVE to write"
                    + " (the default mode), or write outside the lock.");
        }
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
        FencedTransaction transaction = transaction();
        List<Fence> toPresent = new ArrayList<>(fences.size());
        for (Fence fence : fences) {
            // A lease lost since the check must stop further writes locally (invariant 6).
            if (!transaction.covers(fence) && !(fence.isValid() && transaction.rideOnLender(fence))) {
                toPresent.add(fence);
            }
        }
        String sessionFence = null;
        if (!this.guard.protectedTables().isEmpty()) {
            List<SessionFence.Row> rows = new ArrayList<>();
            for (Fence fence : fences) {
                rows.addAll(this.guard.rows(fence));
            }
            String value = SessionFence.of(rows, transaction.rides());
            sessionFence = value.equals(transaction.sessionFence()) ? null : value;
        }
        FenceDialect dialect = this.guard.dialect(this.target);
        long idleMillis = (this.idleBounded && FenceProtection.outlivesTransaction(dialect)) ? 0 : idleBound(fences);
        SessionSettings session = new SessionSettings(sessionFence, idleMillis);
        for (Fence fence : toPresent) {
            // The session's settings ride along with the guard's own statement where the dialect can.
            transaction.presented(fence, present(fence, session));
        }
        if (!toPresent.isEmpty() && idleMillis > 0) {
            this.idleBounded = true;
        }
        if (sessionFence != null) {
            if (!this.guard.checksInClient()) {
                // No statement of the guard's carries the idle bound here: the fence's own does.
                FenceProtection.setSessionFence(this.target, dialect, sessionFence, idleMillis);
            } else if (toPresent.isEmpty()) {
                FenceProtection.setSessionFence(this.target, dialect, sessionFence);
            }
            transaction.sessionFenceSet(sessionFence);
            this.sessionFenceSet |= FenceProtection.outlivesTransaction(dialect);
        }
    }

    /**
     * How long a transaction that presents {@code fences} may sit idle before the database ends it:
     * the shortest time left on their leases, and a second more. A holder frozen inside its
     * transaction would otherwise keep the fence row locked for as long as it stays frozen. 0 when
     * the guard does not bound idle transactions or no fence has a lease.
     */
    private long idleBound(List<Fence> fences) {
        if (!this.guard.boundsIdleTransactions()) {
            return 0;
        }
        long bound = Long.MAX_VALUE;
        for (Fence fence : fences) {
            if (fence.lease() != null) {
                long left = fence.lease().expiresAt().toEpochMilli() - System.currentTimeMillis();
                bound = Math.min(bound, Math.max(left, 0) + 1000);
            }
        }
        return (bound == Long.MAX_VALUE) ? 0 : bound;
    }

    /** Clears the session's fence where it outlives transactions (MariaDB), if this connection set one. */
    private void clearSessionFence() throws SQLException {
        boolean idle = this.idleBounded && FenceProtection.outlivesTransaction(this.guard.dialect(this.target));
        if (!this.sessionFenceSet && !idle) {
            return;
        }
        try {
            FenceProtection.resetSession(this.target, this.sessionFenceSet, idle);
            this.sessionFenceSet = false;
            this.idleBounded = false;
        } catch (SQLException ex) {
            // A session that may still carry the fence must not serve anyone else: take it out of its pool.
            this.target.abort(Runnable::run);
            throw ex;
        }
    }

    /** What a protected table's refusal in {@code failure} means to the caller, or {@code null} (see {@link FenceProtection#translate}). */
    @Nullable
    RuntimeException refusalOf(SQLException failure) {
        return FenceProtection.translate(failure, this::reported);
    }

    /** Before a commit: a transaction that rode on another's lock presents the fence if that lock may be gone. */
    private void confirmRides() throws SQLException {
        FencedTransaction transaction = this.transaction;
        if (transaction == null) {
            return;
        }
        for (Fence fence : transaction.ridesToConfirm()) {
            transaction.presented(fence, present(fence, SessionSettings.NONE));
        }
    }

    private boolean present(Fence fence, SessionSettings session) throws SQLException {
        if (this.readOnly == null) {
            this.readOnly = this.target.isReadOnly();
        }
        try {
            if (!this.guard.checksInClient()) {
                // The protected tables' triggers check it; they lock the fence row at the first write.
                this.guard.checkLocally(this.target, fence);
                return true;
            }
            return this.guard.present(this.target, fence, this.readOnly, session);
        } catch (FencingTokenRejectedException rejection) {
            throw reported(rejection);
        }
    }

    private FencedTransaction transaction() throws SQLException {
        FencedTransaction current = this.transaction;
        if (current == null || !current.isOpen()) {
            current = new FencedTransaction(this);
            this.transaction = current;
        }
        return current;
    }

    private void endTransaction() {
        FencedTransaction current = this.transaction;
        if (current != null) {
            this.transaction = null;
            current.end();
        }
    }

    FencingTokenRejectedException reported(FencingTokenRejectedException rejection) {
        this.rejections.accept(rejection);
        return rejection;
    }
}
