/**
 * Actuator support for FenceLock: the {@code fencelock} health indicator and the {@code fencelock}
 * endpoint for operators.
 */
@NullMarked
package dev.fencelock.actuate;

import org.jspecify.annotations.NullMarked;
