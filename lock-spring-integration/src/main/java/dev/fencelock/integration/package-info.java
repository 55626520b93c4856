/**
 * Spring Integration on FenceLock: {@link dev.fencelock.integration.FenceLockRegistry}, a lock registry
 * whose locks carry fencing tokens, for fenced locks and for leader election with Spring
 * Integration's {@code LockRegistryLeaderInitiator}. This package uses Spring (Spring
 * Integration's contracts) but not Spring Boot.
 */
@NullMarked
package dev.fencelock.integration;

import org.jspecify.annotations.NullMarked;
