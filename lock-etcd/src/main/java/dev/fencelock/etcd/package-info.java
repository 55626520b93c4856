/** The etcd backend (through jetcd). */
@NullMarked
package dev.fencelock.etcd;

import org.jspecify.annotations.NullMarked;
