package dev.fencelock.jdbc;

import dev.fencelock.LockLease;
import java.lang.reflect.Proxy;

/**
 * A lease whose validity the test switches, to model a lock this process knows it has lost. A
 * dynamic proxy, so it keeps compiling as {@link LockLease} grows; only what the guard reads is
 * answered.
 */
final class StubLease {

    private final LockLease lease;

    private volatile boolean valid = true;

    private volatile boolean fencing = true;

    private volatile java.time.Instant expiresAt = java.time.Instant.now().plusSeconds(30);

    StubLease(String resource, long token) {
        this(resource, token, true);
    }

    /** A lease that is exclusive, or one of several holders (a reader, a semaphore permit). */
    StubLease(String resource, long token, boolean exclusive) {
        this.lease = (LockLease) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {LockLease.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "isValid":
                            return this.valid;
                        case "resource":
                            return resource;
                        case "fencingToken":
                            return token;
                        case "isExclusive":
                            return exclusive;
                        case "isFencing":
                            return this.fencing;
                        case "expiresAt":
                            return this.expiresAt;
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        case "toString":
                            return "StubLease[" + resource + ", " + token + "]";
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    LockLease lease() {
        return this.lease;
    }

    void expiresAt(java.time.Instant expiresAt) {
        this.expiresAt = expiresAt;
    }

    /** Makes this the lease of a store whose tokens are not fencing tokens (Redis). */
    StubLease withoutFencing() {
        this.fencing = false;
        return this;
    }

    void lose() {
        this.valid = false;
    }
}
