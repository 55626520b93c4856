package dev.fencelock.docs.bank;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * docs/getting-started.md, "A test with the kit". This example shares its module with the sample
 * app, so it names its own in-memory database and schema; in a project of its own, the
 * application's {@code schema.sql} is found without saying so.
 */
@SpringBootTest(
        properties = {
            "spring.datasource.url=jdbc:h2:mem:bank;DB_CLOSE_DELAY=-1",
            "spring.sql.init.schema-locations=classpath:dev/fencelock/docs/bank/schema.sql",
            // The bank has its own tables: none of the inventory's protected ones.
            "fencelock.fencing.jdbc.protected-tables="
        })
class TransferServiceTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @DynamicPropertySource
    static void etcdEndpoints(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> String.join(",", etcd.endpoints()));
    }

    @Autowired
    TransferService transfers;

    @Autowired
    JdbcClient jdbc;

    @Test
    void oppositeTransfersAtTheSameTimeBothCompleteAndMoveTheMoneyOnce() throws Exception {
        this.jdbc
                .sql("INSERT INTO account (id, balance) VALUES (1, 100), (2, 100)")
                .update();
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            Future<Long> there = callers.submit(() -> this.transfers.transfer(1, 2, 30));
            Future<Long> back = callers.submit(() -> this.transfers.transfer(2, 1, 10));
            there.get(30, TimeUnit.SECONDS);
            back.get(30, TimeUnit.SECONDS);
        } finally {
            callers.shutdownNow();
        }
        assertThat(balance(1)).isEqualTo(80);
        assertThat(balance(2)).isEqualTo(120);
        // Each transfer presented both accounts' tokens to the fence table before it wrote.
        assertThat(this.jdbc
                        .sql("SELECT resource FROM fencelock_fence")
                        .query(String.class)
                        .list())
                .contains("account:1", "account:2");
    }

    private long balance(long account) {
        return this.jdbc
                .sql("SELECT balance FROM account WHERE id = ?")
                .param(account)
                .query(Long.class)
                .single();
    }
}
