package dev.fencelock.autoconfigure.shedlock;

import dev.fencelock.shedlock.FenceLockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the auto-configured ShedLock lock provider. */
@ConfigurationProperties("fencelock.shedlock")
public class FenceLockShedLockProperties {

    /** Prefix of the lock resource of each ShedLock lock name, so that its names cannot collide with other locks. */
    private String resourcePrefix = FenceLockProvider.DEFAULT_RESOURCE_PREFIX;

    /**
     * Lease time to live of ShedLock locks: how long a lock outlives its holder's process, before
     * lockAtMostFor shortens it and lockAtLeastFor lengthens it. Whole seconds, at least 1s;
     * fencelock.lease-ttl when not set.
     */
    private @Nullable Duration leaseTtl;

    /** Whether a locked task presents its fencing token to fenced data sources on the thread that locked it. */
    private boolean fenceWrites = true;

    public String getResourcePrefix() {
        return this.resourcePrefix;
    }

    public void setResourcePrefix(String resourcePrefix) {
        this.resourcePrefix = resourcePrefix;
    }

    public @Nullable Duration getLeaseTtl() {
        return this.leaseTtl;
    }

    public void setLeaseTtl(@Nullable Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public boolean isFenceWrites() {
        return this.fenceWrites;
    }

    public void setFenceWrites(boolean fenceWrites) {
        this.fenceWrites = fenceWrites;
    }
}
