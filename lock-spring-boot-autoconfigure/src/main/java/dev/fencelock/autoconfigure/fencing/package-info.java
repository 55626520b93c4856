/**
 * Auto-configuration of fencing at the data store: every {@code DataSource} bean becomes a
 * {@link dev.fencelock.jdbc.FencedDataSource}, the fence table is created or checked at startup,
 * and refused writes are counted and audited.
 */
@NullMarked
package dev.fencelock.autoconfigure.fencing;

import org.jspecify.annotations.NullMarked;
