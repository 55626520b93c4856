/** {@link dev.fencelock.FencingContext} for Micrometer's context propagation. */
@NullMarked
package dev.fencelock.context;

import org.jspecify.annotations.NullMarked;
