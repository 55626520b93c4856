package dev.fencelock.r2dbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FenceStatements;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import io.r2dbc.spi.Wrapped;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * An R2DBC {@link ConnectionFactory} whose connections present the lock's fence in each transaction,
 * as {@link dev.fencelock.jdbc.FencedDataSource} does for JDBC: before the first statement of a
 * transaction that runs under a fence, the guard's conditional upsert advances the fence row (a stale
 * token fails with {@link FencingTokenRejectedException}), and with protected tables the fence is put
 * in the session, where the tables' triggers compare it with the fence table on every write.
 *
 * <p>The fences come from the subscriber's Reactor {@link reactor.util.context.Context}, under
 * {@link #CONTEXT_KEY} (a {@code List<Fence>}, outermost first, as {@link FencingContext#all()}),
 * and, when the context has no such entry, from the subscribing thread's {@link FencingContext}, or
 * else from the context or thread that obtained the connection ({@link #create()}): the rest of a
 * chain often runs on the driver's I/O threads, where no thread-local fence is set.
 *
 * <pre>{@code
 * ConnectionFactory fenced = new FencedConnectionFactory(pool, guard);
 * Mono.usingWhen(fenced.create(), connection -> ..., Connection::close)
 *         .contextWrite(Context.of(FencedConnectionFactory.CONTEXT_KEY, List.of(fence)));
 * }</pre>
 *
 * <p>It reads no SQL: under an exclusive fence every statement runs inside a transaction (one in
 * auto-commit mode is refused), and the fence is presented before the first statement of each.
 */
public final class FencedConnectionFactory implements ConnectionFactory, Wrapped<ConnectionFactory> {

    /**
     * The Reactor Context key of the fences, {@link FencingContext#CONTEXT_KEY}: where a reactive
     * locked call puts them, and the key of Micrometer context propagation.
     */
    public static final String CONTEXT_KEY = FencingContext.CONTEXT_KEY;

    private final ConnectionFactory target;

    private final FenceGuard guard;

    private final @Nullable FenceDialect configuredDialect;

    private final Consumer<FencingTokenRejectedException> rejections;

    private volatile @Nullable FenceStatements statements;

    /** Fences {@code target}'s connections with {@code guard}; the dialect is detected from the database. */
    public FencedConnectionFactory(ConnectionFactory target, FenceGuard guard) {
        this(target, guard, null, rejection -> {});
    }

    /**
     * @param dialect the database's dialect, or {@code null} to detect it from the first connection
     * @param rejections told of every refused token (for metrics and audits), before the caller sees it
     */
    public FencedConnectionFactory(
            ConnectionFactory target,
            FenceGuard guard,
            @Nullable FenceDialect dialect,
            Consumer<FencingTokenRejectedException> rejections) {
        if (dialect == FenceDialect.H2) {
            throw new IllegalArgumentException(
                    "The R2DBC fence guard supports PostgreSQL and MariaDB/MySQL, not " + dialect.displayName());
        }
        this.target = Objects.requireNonNull(target);
        this.guard = Objects.requireNonNull(guard);
        this.configuredDialect = dialect;
        this.rejections = Objects.requireNonNull(rejections);
    }

    /**
     * The fences a statement subscribed with {@code context} runs under: the context's entry, or, when
     * it has none, the subscribing thread's fences, or when it has none either (a driver's I/O thread
     * runs the rest of a chain), {@code obtainedUnder}: those in force where the connection was
     * obtained. An empty entry means no fence.
     */
    static List<Fence> fences(ContextView context, List<Fence> obtainedUnder) {
        Object fences = context.getOrDefault(CONTEXT_KEY, null);
        if (fences == null) {
            List<Fence> thread = FencingContext.all();
            return thread.isEmpty() ? obtainedUnder : thread;
        }
        if (!(fences instanceof List<?> list) || !list.stream().allMatch(Fence.class::isInstance)) {
            throw new LockException("The Reactor Context entry '" + CONTEXT_KEY + "' must be a List of"
                    + " FencingContext.Fence, not " + fences.getClass().getName());
        }
        return list.stream().map(Fence.class::cast).toList();
    }

    @Override
    public Publisher<? extends Connection> create() {
        return Mono.deferContextual(context -> Mono.just(fences(context, List.of())))
                .flatMap(obtainedUnder -> Mono.from(this.target.create()).flatMap(connection -> {
                    try {
                        return Mono.just(new FencedConnection(
                                connection, statements(connection), obtainedUnder, this.rejections));
                    } catch (RuntimeException ex) {
                        // An unsupported database: the connection goes back before the caller hears why.
                        return Mono.from(connection.close()).then(Mono.error(ex));
                    }
                }));
    }

    @Override
    public ConnectionFactoryMetadata getMetadata() {
        return this.target.getMetadata();
    }

    /** The fenced factory: its connections write past the guard. */
    @Override
    public ConnectionFactory unwrap() {
        return this.target;
    }

    /** The guard whose fence table and protected tables this factory's connections present fences to. */
    public FenceGuard guard() {
        return this.guard;
    }

    private FenceStatements statements(Connection connection) {
        FenceStatements statements = this.statements;
        if (statements == null) {
            FenceDialect dialect = this.configuredDialect;
            if (dialect == null) {
                String product = connection.getMetadata().getDatabaseProductName();
                dialect = FenceDialect.fromProductName(product);
                if (dialect == FenceDialect.H2) {
                    throw new LockException("The R2DBC fence guard supports PostgreSQL and MariaDB/MySQL, not '"
                            + product + "'; write to H2 through a FencedDataSource");
                }
            }
            statements = FenceStatements.of(this.guard, dialect);
            this.statements = statements;
        }
        return statements;
    }

    @Override
    public String toString() {
        return "FencedConnectionFactory[" + this.target + ", " + this.guard + "]";
    }
}
