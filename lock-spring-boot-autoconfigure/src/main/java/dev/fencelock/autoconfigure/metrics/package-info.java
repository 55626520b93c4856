/** Auto-configuration of FenceLock's Micrometer meters. */
@NullMarked
package dev.fencelock.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
