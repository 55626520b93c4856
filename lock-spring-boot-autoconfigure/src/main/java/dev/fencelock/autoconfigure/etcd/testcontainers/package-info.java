/** {@code @ServiceConnection} for etcd containers (Testcontainers). */
@NullMarked
package dev.fencelock.autoconfigure.etcd.testcontainers;

import org.jspecify.annotations.NullMarked;
