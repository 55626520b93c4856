/**
 * State-machine model tests for any lock backend: scripts of lock steps and faults, checked step
 * by step against a model of the lock, shrunk to a minimal failing script. A backend plugs in as a
 * {@link dev.fencelock.test.model.LockSystem} and is checked with {@link
 * dev.fencelock.test.model.ModelCheck#check}.
 */
@NullMarked
package dev.fencelock.test.model;

import org.jspecify.annotations.NullMarked;
