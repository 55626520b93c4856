-- The application's own table, before FenceLock's migration (docs/migrations/postgresql) protects it.
CREATE TABLE stock (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL);
INSERT INTO stock VALUES ('apple', 100);
