/**
 * The advisor and interceptor that run {@link dev.fencelock.annotation.DistributedLock
 * &#64;DistributedLock} methods under a lock, the startup check of annotated methods, and the
 * restricted evaluation of their lock keys.
 */
@NullMarked
package dev.fencelock.interceptor;

import org.jspecify.annotations.NullMarked;
