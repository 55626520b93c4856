package dev.fencelock.docs;

import dev.fencelock.jpa.FencingToken;
import dev.fencelock.jpa.FencingTokenListener;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;

/**
 * docs/fencing.md, "JPA entities: {@code @FencingToken}". Not mapped by any application here: the
 * sample app maps and tests the same columns as {@code dev.fencelock.sample.stock.StockItem}.
 */
@Entity
@EntityListeners(FencingTokenListener.class)
public class Stock {
    @Id
    String sku;

    int quantity;

    @FencingToken
    @Column(name = "fence_token", nullable = false) // BIGINT NOT NULL DEFAULT 0
    long fenceToken;
}
