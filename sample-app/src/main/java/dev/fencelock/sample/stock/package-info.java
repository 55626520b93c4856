/**
 * Stock levels and reservations: the HTTP API, the locked and fenced service behind it, and the
 * problem details its failures turn into.
 */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample.stock;
