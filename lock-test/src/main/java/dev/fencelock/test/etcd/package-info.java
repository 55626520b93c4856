/**
 * Launches real local etcd clusters for tests and lets tests break them on purpose: kill, pause, stop and
 * restart single members, find the leader, read member metrics.
 *
 * <p>Everything listens on 127.0.0.1 only, and every process started here is stopped by PID, never by name, so
 * parallel builds on the same machine cannot harm each other.
 */
@NullMarked
package dev.fencelock.test.etcd;

import org.jspecify.annotations.NullMarked;
