-- The fence table of docs/fencing.md, for PostgreSQL and H2 (MariaDB/MySQL: see the Liquibase changelog).
CREATE TABLE IF NOT EXISTS fencelock_fence (resource VARCHAR(255) NOT NULL PRIMARY KEY,
  token BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL);
