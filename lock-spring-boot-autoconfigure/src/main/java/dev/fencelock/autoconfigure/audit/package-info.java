/** Auto-configuration of FenceLock's audit trail of lock events. */
@NullMarked
package dev.fencelock.autoconfigure.audit;

import org.jspecify.annotations.NullMarked;
