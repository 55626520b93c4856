/**
 * The advisor and interceptor that run {@link dev.fencelock.annotation.DistributedLock
 * &#64;DistributedLock} methods under a lock, the startup check of annotated methods, and the
 * restricted evaluation of their lock keys; {@link dev.fencelock.interceptor.EnableDistributedLocks
 * &#64;EnableDistributedLocks} turns them on in a Spring Framework application without Spring Boot.
 */
@NullMarked
package dev.fencelock.interceptor;

import org.jspecify.annotations.NullMarked;
