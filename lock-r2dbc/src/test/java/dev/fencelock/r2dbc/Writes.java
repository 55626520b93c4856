package dev.fencelock.r2dbc;

import dev.fencelock.FencingContext.Fence;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/** Reactive reads and writes of a counter table, in a transaction, under the fences given in the Reactor Context. */
final class Writes {

    private Writes() {}

    static Mono<Void> write(ConnectionFactory factory, String table, long value) {
        return inTransaction(
                        factory,
                        connection -> Flux.from(connection
                                        .createStatement(
                                                "UPDATE " + table + " SET val = " + value + " WHERE name = 'c'")
                                        .execute())
                                .concatMap(result -> result.getRowsUpdated())
                                .then(Mono.just(value)))
                .then();
    }

    static Mono<Long> read(ConnectionFactory factory, String table) {
        return inTransaction(
                factory,
                connection -> Flux.from(connection
                                .createStatement("SELECT val FROM " + table + " WHERE name = 'c'")
                                .execute())
                        .concatMap(result -> result.map((row, metadata) -> row.get(0, Long.class)))
                        .next());
    }

    static <T> Mono<T> inTransaction(ConnectionFactory factory, java.util.function.Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(
                Mono.from(factory.create()),
                connection -> Mono.from(connection.beginTransaction())
                        .then(work.apply(connection))
                        .flatMap(value ->
                                Mono.from(connection.commitTransaction()).thenReturn(value))
                        .onErrorResume(failure ->
                                Mono.from(connection.rollbackTransaction()).then(Mono.error(failure))),
                Connection::close);
    }

    static Context under(Fence... fences) {
        return Context.of(FencedConnectionFactory.CONTEXT_KEY, List.of(fences));
    }
}
