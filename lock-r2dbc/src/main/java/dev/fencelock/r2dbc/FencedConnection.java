package dev.fencelock.r2dbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceStatements;
import io.r2dbc.spi.Batch;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionMetadata;
import io.r2dbc.spi.IsolationLevel;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.Statement;
import io.r2dbc.spi.TransactionDefinition;
import io.r2dbc.spi.ValidationDepth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * A connection of {@link FencedConnectionFactory}: presents the fences of each statement's
 * subscriber before the first statement of each transaction, and forgets them wherever the
 * transaction ends through the R2DBC API ({@code commitTransaction}, {@code rollbackTransaction},
 * {@code setAutoCommit}, {@code beginTransaction}, {@code close}). A statement that fails, or a
 * rollback to a savepoint, makes the next statement present them again: the server may have released
 * the fence row.
 *
 * <p>It hands out no driver object: its statements, batches and results are wrapped so that every
 * execution passes the guard and a protected table's refusal reaches the caller as FenceLock's.
 */
final class FencedConnection implements Connection {

    private final Connection target;

    private final FenceStatements statements;

    private final Consumer<FencingTokenRejectedException> rejections;

    /** The fences in force where this connection was obtained, for statements whose subscribers carry none. */
    private final List<Fence> obtainedUnder;

    /** The fences presented in the current transaction, by resource; guarded by {@code this}. */
    private final Map<String, Fence> presented = new HashMap<>(4);

    /** The session fence set in the current transaction, or {@code null}; guarded by {@code this}. */
    private @Nullable String sessionFence;

    /** Whether the session may still carry a fence this connection set (MariaDB's outlive the transaction). */
    private volatile boolean sessionFenceSet;

    FencedConnection(
            Connection target,
            FenceStatements statements,
            List<Fence> obtainedUnder,
            Consumer<FencingTokenRejectedException> rejections) {
        this.target = target;
        this.obtainedUnder = obtainedUnder;
        this.statements = statements;
        this.rejections = rejections;
    }

    /**
     * Runs before a statement or batch: presents the exclusive fences of {@code context} that this
     * transaction has not presented yet, and returns them (outermost first; empty when there are none).
     */
    Mono<List<Fence>> beforeExecute(ContextView context) {
        return Mono.defer(() -> {
            List<Fence> all = FencedConnectionFactory.fences(context, this.obtainedUnder);
            List<Fence> fences = all.stream().filter(Fence::fencesWrites).toList();
            if (fences.isEmpty()) {
                // Shared locks' holders hold together: no token of theirs may refuse another, so none is presented.
                return clearSessionFence().thenReturn(fences);
            }
            if (this.target.isAutoCommit()) {
                return Mono.error(new LockException("Fenced statement outside a transaction on lock '"
                        + fences.get(fences.size() - 1).resource()
                        + "': guard and write must commit together; run it in a"
                        + " transaction (@Transactional, TransactionalOperator, or beginTransaction() ..."
                        + " commitTransaction())"));
            }
            return present(fences).thenReturn(fences);
        });
    }

    private Mono<Void> present(List<Fence> fences) {
        List<Fence> sorted = new ArrayList<>(fences);
        // A fixed order keeps two transactions with the same fences from locking rows crosswise.
        sorted.sort(Comparator.comparing(Fence::resource));
        List<Fence> toPresent = new ArrayList<>(sorted.size());
        String sessionValue = null;
        synchronized (this) {
            for (Fence fence : sorted) {
                Fence earlier = this.presented.get(fence.resource());
                // A lease lost since the check must stop further writes locally (invariant 6).
                if (earlier == null || earlier.token() != fence.token() || !fence.isValid()) {
                    toPresent.add(fence);
                }
            }
            if (!this.statements.guard().protectedTables().isEmpty()) {
                String value = this.statements.sessionFence(sorted);
                sessionValue = value.equals(this.sessionFence) ? null : value;
            }
        }
        for (Fence fence : toPresent) {
            try {
                this.statements.checkLocally(fence);
            } catch (FencingTokenRejectedException rejection) {
                return Mono.error(reported(rejection, fences));
            } catch (RuntimeException ex) {
                return Mono.error(ex);
            }
        }
        Mono<Void> guard = this.statements.guard().checksInClient()
                ? Flux.fromIterable(toPresent)
                        .concatMap(fence -> advance(fence, fences))
                        .then()
                : Mono.empty();
        String session = sessionValue;
        Mono<Void> setSession = (session == null)
                ? Mono.empty()
                : run(this.statements.sessionFenceSql(), session).then(Mono.fromRunnable(() -> {
                    synchronized (this) {
                        this.sessionFence = session;
                    }
                    this.sessionFenceSet |= this.statements.sessionFenceResetSql() != null;
                }));
        return guard.then(setSession).then(Mono.fromRunnable(() -> {
            synchronized (this) {
                toPresent.forEach(fence -> this.presented.put(fence.resource(), fence));
            }
        }));
    }

    /** Presents {@code fence} to each of its fence rows, as the JDBC guard does. */
    private Mono<Void> advance(Fence fence, List<Fence> fences) {
        return Flux.fromIterable(this.statements.rowKeys(fence))
                .concatMap(key -> Mono.from(upsert(key, fence.token())).flatMap(count -> {
                    if (this.statements.upsertCountIsVerdict() && count > 0) {
                        return Mono.<Void>empty();
                    }
                    return lockedToken(key)
                            .map(Optional::of)
                            .defaultIfEmpty(Optional.empty())
                            .flatMap(stored -> {
                                if (!this.statements.upsertCountIsVerdict()
                                        && stored.isPresent()
                                        && stored.get() == fence.token()) {
                                    return Mono.<Void>empty();
                                }
                                FencingTokenRejectedException rejection =
                                        this.statements.rejection(fence.resource(), fence.token(), stored.orElse(null));
                                return Mono.<Void>error(reported(rejection, fences));
                            });
                }))
                .then();
    }

    private Mono<Long> upsert(String key, long token) {
        Statement statement = this.target
                .createStatement(markers(this.statements.upsertSql()))
                .bind(0, key)
                .bind(1, token);
        return Flux.from(statement.execute())
                .concatMap(result -> result.getRowsUpdated())
                .reduce(0L, Long::sum);
    }

    private Mono<Long> lockedToken(String key) {
        Statement statement = this.target
                .createStatement(markers(this.statements.lockedTokenSql()))
                .bind(0, key);
        return Flux.from(statement.execute())
                .concatMap(result -> result.map((row, metadata) -> row.get(0, Long.class)))
                .next();
    }

    private Mono<Void> run(String sql, @Nullable String parameter) {
        Statement statement = this.target.createStatement(markers(sql));
        if (parameter != null) {
            statement.bind(0, parameter);
        }
        return Flux.from(statement.execute())
                .concatMap(result -> result.getRowsUpdated())
                .then();
    }

    /** lock-jdbc's statements with PostgreSQL's numbered markers; their only {@code ?} are markers. */
    private String markers(String sql) {
        if (this.statements.dialect() != FenceDialect.POSTGRESQL) {
            return sql;
        }
        StringBuilder numbered = new StringBuilder(sql.length() + 4);
        int marker = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '?') {
                numbered.append('$').append(++marker);
            } else {
                numbered.append(c);
            }
        }
        return numbered.toString();
    }

    /** Clears the session's fence where it outlives the transaction (MariaDB), if this connection set one. */
    private Mono<Void> clearSessionFence() {
        String reset = this.statements.sessionFenceResetSql();
        if (!this.sessionFenceSet || reset == null) {
            return Mono.empty();
        }
        return run(reset, null).then(Mono.fromRunnable(() -> this.sessionFenceSet = false));
    }

    /**
     * What a failure of a statement that ran under {@code fence} becomes: a protected table's refusal
     * becomes FenceLock's exception; any failure makes the next statement present the fences again.
     */
    Throwable failure(Throwable failure, List<Fence> fences) {
        failed();
        if (failure instanceof R2dbcException r2dbc) {
            Fence innermost = fences.isEmpty() ? null : fences.get(fences.size() - 1);
            RuntimeException refusal =
                    this.statements.refusal(r2dbc.getSqlState(), r2dbc.getMessage(), innermost, failure);
            if (refusal instanceof FencingTokenRejectedException rejection) {
                return reported(rejection, fences);
            }
            if (refusal != null) {
                return refusal;
            }
        }
        return failure;
    }

    /**
     * Tells the rejection listener of {@code rejection} on a thread that carries {@code fences}, as a
     * JDBC writer's thread does, so that it can name the lock (metrics, audit).
     */
    private FencingTokenRejectedException reported(FencingTokenRejectedException rejection, List<Fence> fences) {
        try (FencingContext.Scope scope = FencingContext.restore(fences)) {
            this.rejections.accept(rejection);
        }
        return rejection;
    }

    /** The server may have rolled back (part of) the transaction, releasing the fence row and the session fence. */
    private synchronized void failed() {
        this.presented.clear();
        this.sessionFence = null;
    }

    /** The transaction ended: nothing it presented holds any more. */
    private synchronized void ended() {
        this.presented.clear();
        this.sessionFence = null;
    }

    private Publisher<Void> ending(Publisher<Void> action) {
        return Mono.from(action).doFinally(signal -> ended());
    }

    @Override
    public Publisher<Void> beginTransaction() {
        return ending(this.target.beginTransaction());
    }

    @Override
    public Publisher<Void> beginTransaction(TransactionDefinition definition) {
        return ending(this.target.beginTransaction(definition));
    }

    @Override
    public Publisher<Void> commitTransaction() {
        return ending(this.target.commitTransaction());
    }

    @Override
    public Publisher<Void> rollbackTransaction() {
        return ending(this.target.rollbackTransaction());
    }

    @Override
    public Publisher<Void> setAutoCommit(boolean autoCommit) {
        return ending(this.target.setAutoCommit(autoCommit));
    }

    @Override
    public Publisher<Void> rollbackTransactionToSavepoint(String name) {
        return Mono.from(this.target.rollbackTransactionToSavepoint(name)).doFinally(signal -> failed());
    }

    @Override
    public Publisher<Void> close() {
        // The session goes back to its pool: no fence may stay in it. Closed even when clearing fails.
        return clearSessionFence()
                .onErrorResume(ex -> Mono.from(this.target.close()).then(Mono.error(ex)))
                .then(Mono.from(this.target.close()))
                .doFinally(signal -> ended());
    }

    @Override
    public Statement createStatement(String sql) {
        return new FencedStatement(this, this.target.createStatement(sql));
    }

    @Override
    public Batch createBatch() {
        return new FencedStatement.FencedBatch(this, this.target.createBatch());
    }

    @Override
    public Publisher<Void> createSavepoint(String name) {
        return this.target.createSavepoint(name);
    }

    @Override
    public Publisher<Void> releaseSavepoint(String name) {
        return this.target.releaseSavepoint(name);
    }

    @Override
    public boolean isAutoCommit() {
        return this.target.isAutoCommit();
    }

    @Override
    public ConnectionMetadata getMetadata() {
        return this.target.getMetadata();
    }

    @Override
    public IsolationLevel getTransactionIsolationLevel() {
        return this.target.getTransactionIsolationLevel();
    }

    @Override
    public Publisher<Void> setTransactionIsolationLevel(IsolationLevel level) {
        return this.target.setTransactionIsolationLevel(level);
    }

    @Override
    public Publisher<Void> setLockWaitTimeout(Duration timeout) {
        return this.target.setLockWaitTimeout(timeout);
    }

    @Override
    public Publisher<Void> setStatementTimeout(Duration timeout) {
        return this.target.setStatementTimeout(timeout);
    }

    @Override
    public Publisher<Boolean> validate(ValidationDepth depth) {
        return this.target.validate(depth);
    }

    @Override
    public String toString() {
        return "FencedConnection[" + this.target + "]";
    }
}
