package dev.fencelock.r2dbc;

import dev.fencelock.FencingContext.Fence;
import io.r2dbc.spi.Batch;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.RowMetadata;
import io.r2dbc.spi.Statement;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * A statement of a {@link FencedConnection}: its execution first passes the guard with the fences
 * of its subscriber, and its results report a protected table's refusal as FenceLock's exception.
 */
final class FencedStatement implements Statement {

    private final FencedConnection connection;

    private final Statement target;

    FencedStatement(FencedConnection connection, Statement target) {
        this.connection = connection;
        this.target = target;
    }

    @Override
    public Publisher<? extends Result> execute() {
        return guarded(this.connection, this.target::execute);
    }

    /** Runs the guard, then {@code execution}, with every failure (the results' too) translated. */
    static Flux<Result> guarded(FencedConnection connection, Supplier<Publisher<? extends Result>> execution) {
        return Flux.deferContextual(context -> connection
                .beforeExecute(context)
                .flatMapMany(fences -> Flux.from(execution.get())
                        .<Result>map(result -> new FencedResult(connection, result, fences))
                        .onErrorMap(failure -> connection.failure(failure, fences))));
    }

    @Override
    public Statement add() {
        this.target.add();
        return this;
    }

    @Override
    public Statement bind(int index, Object value) {
        this.target.bind(index, value);
        return this;
    }

    @Override
    public Statement bind(String name, Object value) {
        this.target.bind(name, value);
        return this;
    }

    @Override
    public Statement bindNull(int index, Class<?> type) {
        this.target.bindNull(index, type);
        return this;
    }

    @Override
    public Statement bindNull(String name, Class<?> type) {
        this.target.bindNull(name, type);
        return this;
    }

    @Override
    public Statement returnGeneratedValues(String... columns) {
        this.target.returnGeneratedValues(columns);
        return this;
    }

    @Override
    public Statement fetchSize(int rows) {
        this.target.fetchSize(rows);
        return this;
    }

    /** A batch of a {@link FencedConnection}, guarded as its statements are. */
    static final class FencedBatch implements Batch {

        private final FencedConnection connection;

        private final Batch target;

        FencedBatch(FencedConnection connection, Batch target) {
            this.connection = connection;
            this.target = target;
        }

        @Override
        public Batch add(String sql) {
            this.target.add(sql);
            return this;
        }

        @Override
        public Publisher<? extends Result> execute() {
            return guarded(this.connection, this.target::execute);
        }
    }

    /** A result whose failures (where a trigger's refusal arrives) are translated. */
    private static final class FencedResult implements Result {

        private final FencedConnection connection;

        private final Result target;

        private final List<Fence> fences;

        FencedResult(FencedConnection connection, Result target, List<Fence> fences) {
            this.connection = connection;
            this.target = target;
            this.fences = fences;
        }

        private <T> Publisher<T> translated(Publisher<T> publisher) {
            return Flux.from(publisher).onErrorMap(failure -> this.connection.failure(failure, this.fences));
        }

        @Override
        public Publisher<Long> getRowsUpdated() {
            return translated(this.target.getRowsUpdated());
        }

        @Override
        public <T> Publisher<T> map(BiFunction<Row, RowMetadata, ? extends T> mapping) {
            return translated(this.target.map(mapping));
        }

        @Override
        public <T> Publisher<T> map(Function<? super Readable, ? extends T> mapping) {
            return translated(this.target.map(mapping));
        }

        @Override
        public Result filter(Predicate<Segment> filter) {
            return new FencedResult(this.connection, this.target.filter(filter), this.fences);
        }

        @Override
        public <T> Publisher<T> flatMap(Function<Segment, ? extends Publisher<? extends T>> mapping) {
            return translated(this.target.flatMap(mapping));
        }
    }
}
