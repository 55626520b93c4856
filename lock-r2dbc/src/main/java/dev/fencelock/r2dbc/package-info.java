/**
 * Fencing at the database for reactive writes: {@link dev.fencelock.r2dbc.FencedConnectionFactory}
 * presents the lock's fence in each R2DBC transaction, with the fence table and protected tables of
 * {@code lock-jdbc}.
 */
@NullMarked
package dev.fencelock.r2dbc;

import org.jspecify.annotations.NullMarked;
