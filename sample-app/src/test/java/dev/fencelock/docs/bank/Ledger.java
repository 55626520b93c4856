package dev.fencelock.docs.bank;

import dev.fencelock.FencingContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/** The writes. Called under the locks, so FenceLock presents their tokens to the database first. */
@Repository
public class Ledger {

    private final JdbcClient jdbc;

    public Ledger(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Moves {@code amount} and returns what is left on {@code from}. */
    @Transactional
    public long move(long from, long to, long amount) {
        long balance = this.jdbc
                .sql("SELECT balance FROM account WHERE id = ?")
                .param(from)
                .query(Long.class)
                .single();
        if (balance < amount) {
            throw new IllegalStateException("Account " + from + " holds " + balance + ", less than " + amount);
        }
        this.jdbc
                .sql("UPDATE account SET balance = balance - ? WHERE id = ?")
                .params(amount, from)
                .update();
        this.jdbc
                .sql("UPDATE account SET balance = balance + ? WHERE id = ?")
                .params(amount, to)
                .update();
        long token = FencingContext.current().orElseThrow().token();
        this.jdbc
                .sql("INSERT INTO transfer (from_account, to_account, amount, fencing_token) VALUES (?, ?, ?, ?)")
                .params(from, to, amount, token)
                .update();
        return balance - amount;
    }
}
