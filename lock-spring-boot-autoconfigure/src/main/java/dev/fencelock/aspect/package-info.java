/**
 * The aspect that runs {@link dev.fencelock.annotation.DistributedLock @DistributedLock} methods
 * under a lock, and the restricted evaluation of their lock keys.
 */
@NullMarked
package dev.fencelock.aspect;

import org.jspecify.annotations.NullMarked;
