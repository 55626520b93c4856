/**
 * Fencing at the database: the JDBC guard that makes the database itself refuse writes from a
 * lock holder that has been replaced. Start with {@link dev.fencelock.jdbc.FencedDataSource};
 * {@link dev.fencelock.jdbc.FencedWrites} covers row-level conditional updates.
 */
@NullMarked
package dev.fencelock.jdbc;

import org.jspecify.annotations.NullMarked;
