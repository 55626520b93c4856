/** Auto-configuration of the Redis lock backend. */
@NullMarked
package dev.fencelock.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
