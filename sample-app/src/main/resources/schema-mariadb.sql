-- The tables of schema.sql in MariaDB's dialect: spring.sql.init.schema-locations=classpath:schema-mariadb.sql
CREATE TABLE IF NOT EXISTS inventory_stock (
  sku VARCHAR(64) NOT NULL PRIMARY KEY,
  quantity INT NOT NULL,
  -- token of the lock holder that last wrote the row; 0 before any fenced write (NULL would match nothing)
  fence_token BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS inventory_reservation (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  sku VARCHAR(64) NOT NULL,
  quantity INT NOT NULL,
  fencing_token BIGINT NOT NULL,
  reserved_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
