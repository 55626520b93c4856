/**
 * Auto-configuration of the etcd backend: connection details, TLS, and the {@link
 * dev.fencelock.etcd.EtcdLockBackend} bean. The one package outside {@code lock-etcd} that knows
 * etcd's types; everything else reaches the backend through the SPI.
 */
@NullMarked
package dev.fencelock.autoconfigure.etcd;

import org.jspecify.annotations.NullMarked;
