/** Auto-configuration of FenceLock's {@code fencelock} actuator endpoint and the masking of its secrets there. */
@NullMarked
package dev.fencelock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
