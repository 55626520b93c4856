/**
 * ShedLock on FenceLock: {@link dev.fencelock.shedlock.FenceLockProvider} locks {@code @SchedulerLock}
 * tasks on etcd and fences their writes. Spring-free, like ShedLock's core.
 */
@NullMarked
package dev.fencelock.shedlock;

import org.jspecify.annotations.NullMarked;
