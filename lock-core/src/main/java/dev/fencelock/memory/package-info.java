/** An in-process backend with etcd semantics, for unit tests. */
@NullMarked
package dev.fencelock.memory;

import org.jspecify.annotations.NullMarked;
