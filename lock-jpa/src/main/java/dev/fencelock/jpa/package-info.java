/**
 * Row-level fencing of JPA entities with Hibernate: a {@link dev.fencelock.jpa.FencingToken}
 * column is set to the lock's fencing token on every write, and updates carry {@code AND
 * <column> <= <token>}, so a stale lock holder updates no row.
 */
@NullMarked
package dev.fencelock.jpa;

import org.jspecify.annotations.NullMarked;
