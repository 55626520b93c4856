/** Service connections for etcd services of Spring Boot's Docker Compose support. */
@NullMarked
package dev.fencelock.autoconfigure.etcd.docker.compose;

import org.jspecify.annotations.NullMarked;
