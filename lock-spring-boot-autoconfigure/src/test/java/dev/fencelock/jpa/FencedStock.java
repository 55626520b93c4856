package dev.fencelock.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A row written only under the lock {@code stock:<sku>}. */
@Entity
@Table(name = "fenced_stock")
@EntityListeners(FencingTokenListener.class)
public class FencedStock {

    @Id
    private String sku;

    private int quantity;

    @FencingToken
    @Column(name = "fence_token", nullable = false)
    private long fenceToken;

    protected FencedStock() {}

    public FencedStock(String sku, int quantity) {
        this.sku = sku;
        this.quantity = quantity;
    }

    public String getSku() {
        return this.sku;
    }

    public int getQuantity() {
        return this.quantity;
    }

    public void setQuantity(int quantity) {
        this.quantity = quantity;
    }

    public long getFenceToken() {
        return this.fenceToken;
    }
}
