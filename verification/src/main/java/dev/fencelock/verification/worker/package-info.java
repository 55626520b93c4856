/**
 * The worker process: a JVM of its own that increments counters under fenced locks and writes down every step in
 * its history file, independently of FenceLock's logs and metrics.
 */
@NullMarked
package dev.fencelock.verification.worker;

import org.jspecify.annotations.NullMarked;
