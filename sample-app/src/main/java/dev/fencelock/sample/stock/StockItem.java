package dev.fencelock.sample.stock;

import dev.fencelock.jpa.FencingToken;
import dev.fencelock.jpa.FencingTokenListener;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A SKU's stock row as a JPA entity: the same {@code inventory_stock} row the JDBC paths write,
 * fenced by its {@code fence_token} column. Under a lock, Hibernate writes the lock's token into
 * it and adds {@code and fence_token<=<token>} to the update, so a holder whose lock passed to
 * someone who already wrote the row changes nothing.
 */
@Entity
@Table(name = "inventory_stock")
@EntityListeners(FencingTokenListener.class)
public class StockItem {

    @Id
    @Column(name = "sku", length = 64)
    private String sku;

    @Column(name = "quantity", nullable = false)
    private int quantity;

    @FencingToken
    @Column(name = "fence_token", nullable = false)
    private long fenceToken;

    protected StockItem() {}

    public String sku() {
        return this.sku;
    }

    public int quantity() {
        return this.quantity;
    }

    /** The token of the lock holder that last wrote the row. */
    public long fenceToken() {
        return this.fenceToken;
    }

    /** Adds a delivery of {@code units} to the stock. */
    public void receive(int units) {
        this.quantity += units;
    }
}
