/**
 * Stock levels, reservations, transfers between SKUs and a summary: the HTTP API, the locked and
 * fenced services behind it (an exclusive lock per change, a shared lock per read, both SKUs' locks
 * per transfer, a semaphore for the summary), and the problem details its failures turn into.
 */
@org.jspecify.annotations.NullMarked
package dev.fencelock.sample.stock;
