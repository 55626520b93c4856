/** Stock levels and reservations: the HTTP API, the locked service and its R2DBC schema. */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample.webflux.stock;
