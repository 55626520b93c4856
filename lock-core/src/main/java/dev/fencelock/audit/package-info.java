/** The lock audit trail: one structured log line per lock event. */
@NullMarked
package dev.fencelock.audit;

import org.jspecify.annotations.NullMarked;
