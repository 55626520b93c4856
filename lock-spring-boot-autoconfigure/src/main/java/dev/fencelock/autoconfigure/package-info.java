/**
 * Auto-configuration for FenceLock: properties, connection details, the lock backend, the
 * {@link dev.fencelock.LockClient} and the {@code @DistributedLock} advisor.
 */
@NullMarked
package dev.fencelock.autoconfigure;

import org.jspecify.annotations.NullMarked;
