package dev.fencelock.autoconfigure.web;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the problem details that HTTP callers get for FenceLock's exceptions. */
@ConfigurationProperties("fencelock.problem-details")
public class FenceLockProblemDetailsProperties {

    /**
     * Whether FenceLock's exceptions that leave a Spring MVC or WebFlux controller are answered with
     * RFC 9457 problem details (409, 423, 429, 503) rather than 500.
     */
    private boolean enabled = true;

    /** Time a caller is told to wait, in the Retry-After header, when the lock store is unavailable. Whole seconds. */
    private Duration retryAfter = Duration.ofSeconds(5);

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }
}
