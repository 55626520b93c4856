/** Auto-configuration of the ZooKeeper lock backend. */
@NullMarked
package dev.fencelock.autoconfigure.zookeeper;

import org.jspecify.annotations.NullMarked;
