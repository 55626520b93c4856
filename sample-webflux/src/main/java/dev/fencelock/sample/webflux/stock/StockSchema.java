package dev.fencelock.sample.webflux.stock;

import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FenceProtection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Flux;

/**
 * Creates the stock table, FenceLock's fence table and the stock table's fence triggers at start-up,
 * before the server takes requests: FenceLock creates neither for R2DBC. Every statement is safe to
 * run again. In production, put the same statements in a migration and set {@code
 * stock.initialize-schema=false}.
 */
@Component
@ConditionalOnBooleanProperty(name = "stock.initialize-schema", matchIfMissing = true)
class StockSchema implements SmartInitializingSingleton {

    private final ConnectionFactory connectionFactory;

    private final TransactionalOperator transactions;

    private final FenceGuard guard;

    StockSchema(ConnectionFactory connectionFactory, ReactiveTransactionManager transactionManager, FenceGuard guard) {
        this.connectionFactory = connectionFactory;
        this.transactions = TransactionalOperator.create(transactionManager);
        this.guard = guard;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String product = this.connectionFactory.getMetadata().getName();
        if (FenceDialect.fromProductName(product) != FenceDialect.POSTGRESQL) {
            throw new IllegalStateException("The sample's schema is written for PostgreSQL, not " + product);
        }
        List<String> ddl = new ArrayList<>();
        // FenceLock's own schema lock: replicas starting together never replace one trigger function at once.
        ddl.add(FenceProtection.postgresqlSchemaLock());
        ddl.add("CREATE TABLE IF NOT EXISTS webflux_stock (sku VARCHAR(64) NOT NULL PRIMARY KEY,"
                + " quantity INT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0)");
        ddl.add(FenceDialect.POSTGRESQL.createTableSql(this.guard.table()));
        for (String table : this.guard.protectedTables()) {
            ddl.addAll(FenceProtection.ddl(FenceDialect.POSTGRESQL, this.guard.table(), table));
        }
        // Through the connection, not DatabaseClient.sql: the trigger function's body must not be read for :parameters.
        DatabaseClient.create(this.connectionFactory)
                .inConnection(connection -> Flux.fromIterable(ddl)
                        .concatMap(
                                sql -> Flux.from(connection.createStatement(sql).execute())
                                        .concatMap(result -> result.getRowsUpdated()))
                        .then())
                .as(this.transactions::transactional)
                .block(Duration.ofSeconds(60));
    }
}
