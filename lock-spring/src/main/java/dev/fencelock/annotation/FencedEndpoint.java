package dev.fencelock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring MVC handler method (or every handler of a controller) as one that writes under
 * the fence of its caller: the caller holds a lock in another service and sends its fencing
 * tokens in the {@code FenceLock-Fence} header, and this service's fenced {@code DataSource}
 * presents them to its own database, so a caller that lost its lock (paused past its lease) is
 * refused there with 409.
 *
 * <p>The header must be signed with one of the keys of {@code fencelock.http.signing.keys} and
 * name this service's fence scope; an unsigned, forged or expired header is refused (403). A
 * request without the header is refused with 428 unless {@link #optional()} is set.
 *
 * <pre>{@code
 * @FencedEndpoint
 * @PostMapping("/api/orders/{orderId}/reservations")
 * Reservation reserve(...) { ... }   // runs under the caller's fence
 * }</pre>
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedEndpoint {

    /**
     * Whether a request without a fence header is served (unfenced) instead of refused with 428. A
     * header that is present is checked either way.
     */
    boolean optional() default false;
}
