/**
 * FenceLock's reactive sample: a WebFlux stock service whose reservations are locked on etcd and
 * fenced in PostgreSQL through R2DBC.
 */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample.webflux;
