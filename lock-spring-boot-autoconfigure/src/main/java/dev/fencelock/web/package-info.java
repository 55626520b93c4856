/**
 * FenceLock's exceptions as RFC 9457 problem details for HTTP callers, in Spring MVC and WebFlux.
 */
@NullMarked
package dev.fencelock.web;

import org.jspecify.annotations.NullMarked;
