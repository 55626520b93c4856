/** Auto-configuration of the problem details that HTTP callers get for FenceLock's exceptions. */
@NullMarked
package dev.fencelock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
