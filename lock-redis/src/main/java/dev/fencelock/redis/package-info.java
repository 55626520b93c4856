/**
 * The Redis backend (through Lettuce): an efficiency lock. Its tokens are not fencing tokens; see
 * {@link dev.fencelock.redis.RedisLockBackend}.
 */
@NullMarked
package dev.fencelock.redis;

import org.jspecify.annotations.NullMarked;
