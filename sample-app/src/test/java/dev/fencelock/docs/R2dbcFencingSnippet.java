package dev.fencelock.docs;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockLease;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.List;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/** docs/fencing.md, "Fenced R2DBC writes". */
class R2dbcFencingSnippet {

    Mono<Void> reserve(ConnectionFactory pool, LockLease lease) {
        FenceGuard guard = FenceGuard.builder().protectedTables("stock").build();
        ConnectionFactory fenced = new FencedConnectionFactory(pool, guard);

        Mono<Void> reserve = Mono.usingWhen(
                        Mono.from(fenced.create()),
                        connection -> Mono.from(connection.beginTransaction())
                                .thenMany(connection
                                        .createStatement("UPDATE stock SET qty = qty - 1 WHERE sku = 'apple'")
                                        .execute())
                                .flatMap(result -> result.getRowsUpdated())
                                .then(Mono.from(connection.commitTransaction())),
                        Connection::close)
                // the lock's fence, for every statement of this pipeline
                .contextWrite(Context.of(
                        FencedConnectionFactory.CONTEXT_KEY,
                        List.of(new Fence(lease.resource(), lease.fencingToken(), lease))));
        return reserve;
    }
}
