package dev.fencelock.actuate;

import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * Who called an endpoint operation, for the audit trail: the principal the request carries (the
 * servlet's or WebFlux's user, which Spring Security sets), else the authentication in Spring
 * Security's {@code SecurityContextHolder} (a JMX call made by authenticated code), else {@value
 * #ANONYMOUS}.
 */
final class OperatorPrincipal {

    /** The name recorded when nobody is known to have made the call. */
    static final String ANONYMOUS = "anonymous";

    private static final boolean SPRING_SECURITY_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder",
            OperatorPrincipal.class.getClassLoader());

    private OperatorPrincipal() {}

    static String nameOf(SecurityContext context) {
        Principal principal = context.getPrincipal();
        if (principal != null && principal.getName() != null) {
            return principal.getName();
        }
        String authenticated = SPRING_SECURITY_PRESENT ? SpringSecurity.authenticatedName() : null;
        return (authenticated != null) ? authenticated : ANONYMOUS;
    }

    /** Touches Spring Security only when it is on the class path; it is an optional dependency. */
    private static final class SpringSecurity {

        static @Nullable String authenticatedName() {
            Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
            return (authentication != null && authentication.isAuthenticated()) ? authentication.getName() : null;
        }
    }
}
