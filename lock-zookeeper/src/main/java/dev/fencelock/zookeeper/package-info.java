/**
 * Locks on a ZooKeeper ensemble: one ephemeral sequential node per acquisition under a node per
 * resource, one session per lease TTL as the lease, and each node's creation zxid as its fencing
 * token. See {@link dev.fencelock.zookeeper.ZooKeeperLockBackend}.
 */
@NullMarked
package dev.fencelock.zookeeper;

import org.jspecify.annotations.NullMarked;
