/**
 * Micrometer Observation API for locks: one observation for the acquisition (the wait) and one for
 * the held section, with spans when tracing is set up. Spring-free; the Spring Boot starter applies
 * it to {@code @DistributedLock} methods.
 */
@NullMarked
package dev.fencelock.observation;

import org.jspecify.annotations.NullMarked;
