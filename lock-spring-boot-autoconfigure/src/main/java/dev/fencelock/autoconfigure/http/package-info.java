/**
 * Auto-configuration of the fence over HTTP: the signing keys, the fence header on Spring's HTTP
 * clients, and fenced endpoints in Spring MVC and WebFlux.
 */
@NullMarked
package dev.fencelock.autoconfigure.http;

import org.jspecify.annotations.NullMarked;
