/** Auto-configuration of FenceLock's {@code fencelock} health contributor. */
@NullMarked
package dev.fencelock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
