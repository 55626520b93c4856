package dev.fencelock.docs;

import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** docs/spring-boot.md, "Where it may sit": a composed annotation. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@DistributedLock(name = "nightly-report", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
public @interface NightlyJob {}
