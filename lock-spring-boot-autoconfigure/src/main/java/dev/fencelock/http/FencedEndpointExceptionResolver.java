package dev.fencelock.http;

import dev.fencelock.FencingTokenRejectedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a fenced request whose write the database refused with 409 and a problem detail that
 * names the resource, the caller's stale token and, where the database reported it, the newer
 * token it had already accepted.
 *
 * <p>It runs last ({@link Ordered#LOWEST_PRECEDENCE}, after Spring MVC's own resolvers), so an
 * application's {@code @ExceptionHandler} for {@link FencingTokenRejectedException}, or any other
 * mapping of it, wins; and it leaves requests to endpoints that take no fence alone.
 */
public final class FencedEndpointExceptionResolver implements HandlerExceptionResolver, Ordered {

    @Override
    public @Nullable ModelAndView resolveException(
            HttpServletRequest request, HttpServletResponse response, @Nullable Object handler, Exception ex) {
        if (request.getAttribute(FencedEndpointInterceptor.FENCES_ATTRIBUTE) == null || response.isCommitted()) {
            return null;
        }
        FencingTokenRejectedException rejection = rejection(ex);
        if (rejection == null) {
            return null;
        }
        try {
            FencedEndpointInterceptor.write(response, FenceProblems.stale(rejection));
        } catch (IOException writeFailed) {
            return null;
        }
        return new ModelAndView();
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /**
     * The refusal in {@code failure}'s causes or suppressed exceptions (a lost lock carries the
     * method's refused write as a suppressed one), or {@code null}.
     */
    static @Nullable FencingTokenRejectedException rejection(@Nullable Throwable failure) {
        return FenceProblems.rejection(failure);
    }
}
