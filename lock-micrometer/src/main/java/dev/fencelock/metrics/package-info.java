/** Micrometer meters for lock clients (optional: needs micrometer-core). */
@NullMarked
package dev.fencelock.metrics;

import org.jspecify.annotations.NullMarked;
