package dev.fencelock.sample.stock;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data JPA repository of {@link StockItem}s; its writes are fenced like every other. */
public interface StockItems extends JpaRepository<StockItem, String> {}
