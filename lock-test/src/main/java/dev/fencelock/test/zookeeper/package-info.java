/** A local ZooKeeper ensemble of Debian's {@code zookeeper} package, for tests. */
@NullMarked
package dev.fencelock.test.zookeeper;

import org.jspecify.annotations.NullMarked;
