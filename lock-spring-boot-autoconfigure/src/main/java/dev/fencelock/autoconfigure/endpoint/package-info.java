/** Auto-configuration of FenceLock's {@code fencelock} actuator endpoint. */
@NullMarked
package dev.fencelock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
