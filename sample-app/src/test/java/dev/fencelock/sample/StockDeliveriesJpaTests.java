package dev.fencelock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockClient;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jpa.FencingStatementInspector;
import dev.fencelock.sample.stock.StockItem;
import dev.fencelock.sample.stock.StockItems;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Deliveries through JPA, with the fenced entity {@link StockItem}, on H2, PostgreSQL and MariaDB:
 * the update stamps the row with the lock's token under its fencing condition, and a holder whose
 * token is older than the row's changes nothing.
 */
class StockDeliveriesJpaTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @DynamicPropertySource
    static void etcdEndpoints(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> String.join(",", etcd.endpoints()));
    }

    @Nested
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
    class OnH2 extends Deliveries {}

    @Nested
    @SpringBootTest(
            webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = {
                "fencelock.fencing.scope=sample-jpa-tests-${random.uuid}",
                "spring.datasource.url=${FENCELOCK_PG_URL:jdbc:postgresql://127.0.0.1:5432/fencelock}",
                "spring.datasource.username=fencelock",
                "spring.datasource.password=fencelock"
            })
    class OnPostgreSql extends Deliveries {}

    @Nested
    @SpringBootTest(
            webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = {
                "fencelock.fencing.scope=sample-jpa-tests-${random.uuid}",
                "spring.datasource.url=${FENCELOCK_MARIADB_URL:jdbc:mariadb://127.0.0.1:3306/fencelock}",
                "spring.datasource.username=fencelock",
                "spring.datasource.password=fencelock",
                "spring.sql.init.schema-locations=classpath:schema-mariadb.sql"
            })
    class OnMariaDb extends Deliveries {}

    abstract static class Deliveries {

        @LocalServerPort
        private int port;

        @Autowired
        private JdbcClient jdbc;

        @Autowired
        private FenceGuard fenceGuard;

        @Autowired
        private LockClient locks;

        @Autowired
        private StockItems items;

        @Autowired
        private TransactionTemplate transactions;

        private InventoryClient api;

        private InventoryDatabase database;

        private String sku;

        @BeforeEach
        void newSku() {
            this.api = new InventoryClient(this.port);
            this.database = new InventoryDatabase(this.jdbc, this.fenceGuard);
            this.sku = "jpa-" + UUID.randomUUID();
            SessionWarmUp.awaitLocking(this.locks);
        }

        @Test
        void aDeliveryAddsToTheStockAndStampsTheRowWithTheLocksTokenUnderItsCondition() {
            assertThat(this.api.put(this.sku, 5).getStatusCode()).isEqualTo(HttpStatus.OK);
            long before = this.database.rowToken(this.sku).orElseThrow();
            ListAppender<ILoggingEvent> sent = capture();
            ResponseEntity<String> response;
            try {
                response = this.api.deliver(this.sku, 3);
            } finally {
                release(sent);
            }

            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat((Integer) InventoryClient.read(response, "$.quantity")).isEqualTo(8);
            assertThat(this.database.quantity(this.sku)).isEqualTo(8);
            long token = this.database.fenceToken("stock:" + this.sku);
            assertThat(token).isGreaterThan(before);
            assertThat(this.database.rowToken(this.sku)).contains(token);
            assertThat(sent.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy((sql) -> assertThat(sql)
                            .containsIgnoringCase("update inventory_stock")
                            .contains("fence_token<=" + token));
        }

        @Test
        void aHolderWhoseTokenIsOlderThanTheRowsChangesNothing() {
            assertThat(this.api.put(this.sku, 5).getStatusCode()).isEqualTo(HttpStatus.OK);
            long newer = this.database.rowToken(this.sku).orElseThrow();

            // A holder that still believes it holds the lock, with a token from before the last write.
            try (FencingContext.Scope stale =
                    FencingContext.push(new FencingContext.Fence("stock:" + this.sku, newer - 1, null))) {
                assertThatExceptionOfType(FencingTokenRejectedException.class)
                        .isThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
                            StockItem item = this.items.findById(this.sku).orElseThrow();
                            item.receive(100);
                            this.items.saveAndFlush(item);
                        }))
                        .satisfies((refused) -> assertThat(refused.getToken()).isEqualTo(newer - 1));
            }

            assertThat(this.database.quantity(this.sku)).isEqualTo(5);
            assertThat(this.database.rowToken(this.sku)).contains(newer);
        }

        private static ListAppender<ILoggingEvent> capture() {
            ListAppender<ILoggingEvent> appender = new ListAppender<>();
            appender.start();
            Logger logger = (Logger) LoggerFactory.getLogger(FencingStatementInspector.LOGGER_NAME);
            logger.setLevel(Level.DEBUG);
            logger.addAppender(appender);
            return appender;
        }

        private static void release(ListAppender<ILoggingEvent> appender) {
            Logger logger = (Logger) LoggerFactory.getLogger(FencingStatementInspector.LOGGER_NAME);
            logger.detachAppender(appender);
            logger.setLevel(null);
        }
    }
}
