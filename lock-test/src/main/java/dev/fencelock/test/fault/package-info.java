/**
 * Fault injection for tests: a TCP proxy that can cut or black-hole traffic, and signals to pause, resume or
 * kill a process by PID.
 */
@NullMarked
package dev.fencelock.test.fault;

import org.jspecify.annotations.NullMarked;
