package dev.fencelock.http;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * Who sent a fenced request, as far as this service knows: the principal the application
 * authenticated, if any, and the remote address.
 */
public record FenceCaller(@Nullable String principal, String address) {

    static FenceCaller of(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return new FenceCaller(
                (principal != null) ? principal.getName() : null, String.valueOf(request.getRemoteAddr()));
    }

    /** The principal's name, or the address for a caller the application did not authenticate. */
    public String name() {
        return (this.principal != null) ? this.principal : this.address;
    }
}
