/**
 * The fence across service boundaries: Spring's HTTP clients send the current thread's fences in
 * one header ({@link dev.fencelock.http.FenceHeader}), signed, or unsigned to services that trust
 * the caller's client certificate; Spring MVC and WebFlux endpoints marked {@link
 * dev.fencelock.annotation.FencedEndpoint @FencedEndpoint} (or matched by configuration) open them
 * for the request, so that the service's own fenced {@code DataSource} enforces the caller's token
 * in its database.
 */
@NullMarked
package dev.fencelock.http;

import org.jspecify.annotations.NullMarked;
