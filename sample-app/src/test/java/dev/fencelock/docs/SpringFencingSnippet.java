package dev.fencelock.docs;

import dev.fencelock.annotation.DistributedLock;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** docs/fencing.md, "With Spring Boot". */
class SpringFencingSnippet {

    private final JdbcTemplate jdbc;

    SpringFencingSnippet(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @DistributedLock(key = "'stock:' + #sku")
    @Transactional
    public void reserve(String sku, int quantity) {
        // first statement of the transaction: the guard presents the lock's token to the fence table
        int left = jdbc.queryForObject("SELECT qty FROM stock WHERE sku = ?", Integer.class, sku);
        jdbc.update("UPDATE stock SET qty = ? WHERE sku = ?", left - quantity, sku);
    }
}
