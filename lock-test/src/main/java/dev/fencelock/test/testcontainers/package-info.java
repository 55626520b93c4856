/**
 * etcd in a container for Testcontainers, for machines with a Docker engine. Needs {@code
 * org.testcontainers:testcontainers} on the test class path, which the kit does not bring.
 */
@NullMarked
package dev.fencelock.test.testcontainers;

import org.jspecify.annotations.NullMarked;
