package dev.fencelock.autoconfigure.integration;

import dev.fencelock.integration.FenceLockRegistry;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the auto-configured Spring Integration lock registry. */
@ConfigurationProperties("fencelock.integration")
public class FenceLockIntegrationProperties {

    /** Prefix of the lock resource of each registry key, so that its keys cannot collide with other locks. */
    private String keyPrefix = FenceLockRegistry.DEFAULT_KEY_PREFIX;

    /**
     * Lease time to live of registry locks: how long a lock, and so a leadership, outlives its
     * holder's process. Whole seconds, at least 1s; fencelock.lease-ttl when not set.
     */
    private @Nullable Duration leaseTtl;

    /** Whether a thread holding a registry lock presents its fencing token to fenced data sources. */
    private boolean fenceWrites = true;

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
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
