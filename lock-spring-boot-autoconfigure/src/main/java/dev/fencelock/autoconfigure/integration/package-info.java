/** Auto-configuration of FenceLock's Spring Integration lock registry, for fenced locks and leader election. */
@NullMarked
package dev.fencelock.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
