/** A throw-away local {@code redis-server} for tests of the Redis backend. */
@NullMarked
package dev.fencelock.test.redis;

import org.jspecify.annotations.NullMarked;
