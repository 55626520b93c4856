package dev.fencelock.sample.webflux;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The sample's tables, read straight from PostgreSQL on connections of their own (outside any lock,
 * so unfenced), and written as another instance would write them: through a fenced connection,
 * under that instance's fence.
 */
final class StockDatabase {

    /** A bound for a hung test, not a measure of speed. */
    static final Duration HANG = Duration.ofSeconds(30);

    private final ConnectionFactory connections;

    private final FenceGuard guard;

    StockDatabase(String url, FenceGuard guard) {
        this.connections = ConnectionFactories.get(url.replaceFirst("://", "://fencelock:fencelock@"));
        this.guard = guard;
    }

    /** The token the fence table holds for {@code resource}; 0 before any fenced write. */
    long fenceToken(String resource) {
        Long token = readLong(
                "SELECT token FROM " + this.guard.table() + " WHERE resource = $1", this.guard.rowKey(resource));
        return (token != null) ? token : 0L;
    }

    long quantity(String sku) {
        return readLong("SELECT quantity FROM webflux_stock WHERE sku = $1", sku);
    }

    long rowToken(String sku) {
        return readLong("SELECT fence_token FROM webflux_stock WHERE sku = $1", sku);
    }

    /** Sets the stock of {@code sku} in one transaction, under {@code fence}, as another instance's holder. */
    void write(String sku, long quantity, Fence fence) {
        ConnectionFactory fenced = new FencedConnectionFactory(this.connections, this.guard);
        Mono.usingWhen(
                        Mono.from(fenced.create()),
                        connection -> Mono.from(connection.beginTransaction())
                                .thenMany(connection
                                        .createStatement(
                                                "UPDATE webflux_stock SET quantity = $1, fence_token = $2 WHERE sku = $3")
                                        .bind("$1", (int) quantity)
                                        .bind("$2", fence.token())
                                        .bind("$3", sku)
                                        .execute())
                                .concatMap(result -> result.getRowsUpdated())
                                .then(Mono.from(connection.commitTransaction())),
                        Connection::close,
                        (connection, failure) ->
                                Mono.from(connection.rollbackTransaction()).then(Mono.from(connection.close())),
                        Connection::close)
                .contextWrite(context -> context.put(FencingContext.CONTEXT_KEY, List.of(fence)))
                .block(HANG);
    }

    private Long readLong(String sql, String parameter) {
        return Mono.usingWhen(
                        Mono.from(this.connections.create()),
                        connection -> Flux.from(connection
                                        .createStatement(sql)
                                        .bind("$1", parameter)
                                        .execute())
                                .concatMap(result -> result.map((row, metadata) -> row.get(0, Long.class)))
                                .next(),
                        Connection::close)
                .block(HANG);
    }
}
