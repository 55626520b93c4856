/**
 * The {@link dev.fencelock.annotation.DistributedLock @DistributedLock} annotation and its
 * options.
 */
@NullMarked
package dev.fencelock.annotation;

import org.jspecify.annotations.NullMarked;
