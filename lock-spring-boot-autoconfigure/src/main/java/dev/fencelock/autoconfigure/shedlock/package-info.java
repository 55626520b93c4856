/** Auto-configuration of FenceLock's ShedLock lock provider for {@code @SchedulerLock} tasks. */
@NullMarked
package dev.fencelock.autoconfigure.shedlock;

import org.jspecify.annotations.NullMarked;
