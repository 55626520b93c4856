/** FenceLock: fenced distributed locks. Start with {@link dev.fencelock.LockClient}. */
@NullMarked
package dev.fencelock;

import org.jspecify.annotations.NullMarked;
