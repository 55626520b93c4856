--liquibase formatted sql

--changeset fencelock:fence-table dbms:postgresql,h2
CREATE TABLE IF NOT EXISTS fencelock_fence (resource VARCHAR(255) NOT NULL PRIMARY KEY,
  token BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL);

--changeset fencelock:fence-table-mariadb dbms:mariadb,mysql
CREATE TABLE IF NOT EXISTS fencelock_fence (resource VARCHAR(255) CHARACTER SET utf8mb4
  COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, token BIGINT NOT NULL,
  updated_at DATETIME(6) NOT NULL) ENGINE=InnoDB;
