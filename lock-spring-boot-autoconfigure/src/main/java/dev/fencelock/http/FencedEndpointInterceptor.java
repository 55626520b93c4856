package dev.fencelock.http;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.annotation.FencedEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.AsyncHandlerInterceptor;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Opens the caller's fences for a request to a fenced endpoint: one whose handler is marked
 * {@link FencedEndpoint @FencedEndpoint}, or whose path matches {@code
 * fencelock.http.server.paths} (fence required) or {@code optional-paths}. The {@value
 * FenceHeader#NAME} header is checked ({@link FenceHeaderVerifier}) and its fences are pushed
 * onto {@link FencingContext}, without a local lease, until the request completes; the service's
 * fenced {@code DataSource} then presents them to its database with every write of the request.
 *
 * <p>A request it refuses is answered here with a problem detail (428 for a missing header, 400
 * for an unreadable one, 403 for one that cannot be trusted) and never reaches the handler.
 *
 * <p>The fences are bound to the request's thread: work the handler hands to another thread
 * (an async result, an executor) runs without them unless the application propagates context
 * (see {@code FencingContextAccessor}).
 */
public final class FencedEndpointInterceptor implements AsyncHandlerInterceptor {

    /** Set on a request to a fenced endpoint: the fences opened for it (empty when it has none). */
    public static final String FENCES_ATTRIBUTE = FencedEndpointInterceptor.class.getName() + ".fences";

    private static final String SCOPES_ATTRIBUTE = FencedEndpointInterceptor.class.getName() + ".scopes";

    private final FenceHeaderVerifier verifier;

    private final List<PathPattern> requiredPaths;

    private final List<PathPattern> optionalPaths;

    private final List<FenceHeaderListener> listeners;

    public FencedEndpointInterceptor(
            FenceHeaderVerifier verifier,
            List<PathPattern> requiredPaths,
            List<PathPattern> optionalPaths,
            List<FenceHeaderListener> listeners) {
        this.verifier = verifier;
        this.requiredPaths = List.copyOf(requiredPaths);
        this.optionalPaths = List.copyOf(optionalPaths);
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws Exception {
        Boolean optional = fenceOptional(request, handler);
        if (optional == null) {
            return true;
        }
        List<String> headers = Collections.list(request.getHeaders(FenceHeader.NAME));
        if (headers.isEmpty() && optional) {
            request.setAttribute(FENCES_ATTRIBUTE, List.of());
            return true;
        }
        FenceHeaderVerifier.Verified verified;
        try {
            if (headers.isEmpty()) {
                throw new FenceHeaderRefusedException(
                        FenceRefusalReason.MISSING,
                        "This endpoint writes under its caller's lock: send the caller's fence in the "
                                + FenceHeader.NAME + " header (FenceLock's HTTP clients do when the call is made"
                                + " under a lock and a signing key is configured).");
            }
            if (headers.size() > 1) {
                throw new FenceHeaderRefusedException(
                        FenceRefusalReason.MALFORMED,
                        "The request carries " + headers.size() + " " + FenceHeader.NAME
                                + " headers; one header carries all the caller's fences.");
            }
            verified = this.verifier.verify(headers.get(0));
        } catch (FenceHeaderRefusedException refusal) {
            refuse(request, response, refusal);
            return false;
        }
        List<FencingContext.Scope> scopes = new ArrayList<>(verified.fences().size());
        for (Fence fence : verified.fences()) {
            scopes.add(FencingContext.push(fence));
        }
        request.setAttribute(FENCES_ATTRIBUTE, verified.fences());
        request.setAttribute(SCOPES_ATTRIBUTE, scopes);
        FenceCaller caller = FenceCaller.of(request);
        this.listeners.forEach(listener -> listener.accepted(caller, request.getMethod(), path(request), verified));
        return true;
    }

    @Override
    public void afterConcurrentHandlingStarted(
            HttpServletRequest request, HttpServletResponse response, Object handler) {
        close(request);
    }

    @Override
    public void afterCompletion(
            HttpServletRequest request, HttpServletResponse response, Object handler, @Nullable Exception ex) {
        close(request);
        if (request.getAttribute(FENCES_ATTRIBUTE) instanceof List<?> fences && !fences.isEmpty()) {
            // A failure that a handler resolved reaches here only as the dispatcher's request attribute.
            Throwable failure = (ex != null)
                    ? ex
                    : (request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE) instanceof Throwable resolved)
                            ? resolved
                            : null;
            FencingTokenRejectedException rejection = FencedEndpointExceptionResolver.rejection(failure);
            if (rejection != null) {
                FenceCaller caller = FenceCaller.of(request);
                this.listeners.forEach(
                        listener -> listener.rejected(caller, request.getMethod(), path(request), rejection));
            }
        }
    }

    private static void close(HttpServletRequest request) {
        if (request.getAttribute(SCOPES_ATTRIBUTE) instanceof List<?> scopes) {
            request.removeAttribute(SCOPES_ATTRIBUTE);
            for (int i = scopes.size() - 1; i >= 0; i--) {
                ((FencingContext.Scope) scopes.get(i)).close();
            }
        }
    }

    /** {@code null} for an endpoint that takes no fence; otherwise whether its fence is optional. */
    private @Nullable Boolean fenceOptional(HttpServletRequest request, Object handler) {
        if (handler instanceof HandlerMethod method) {
            FencedEndpoint endpoint =
                    AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), FencedEndpoint.class);
            if (endpoint == null) {
                endpoint = AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), FencedEndpoint.class);
            }
            if (endpoint != null) {
                return endpoint.optional();
            }
        }
        if (this.requiredPaths.isEmpty() && this.optionalPaths.isEmpty()) {
            return null;
        }
        PathContainer path = ServletRequestPathUtils.hasParsedRequestPath(request)
                ? ServletRequestPathUtils.getParsedRequestPath(request).pathWithinApplication()
                : RequestPath.parse(request.getRequestURI(), request.getContextPath())
                        .pathWithinApplication();
        if (this.requiredPaths.stream().anyMatch(pattern -> pattern.matches(path))) {
            return false;
        }
        return this.optionalPaths.stream().anyMatch(pattern -> pattern.matches(path)) ? true : null;
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, FenceHeaderRefusedException refusal)
            throws IOException {
        FenceCaller caller = FenceCaller.of(request);
        this.listeners.forEach(listener -> listener.refused(caller, request.getMethod(), path(request), refusal));
        FenceRefusalReason reason = refusal.reason();
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("reason", reason.tag());
        FenceProblems.write(
                response,
                reason.status(),
                (reason == FenceRefusalReason.MISSING) ? "fence-required" : "fence-refused",
                (reason == FenceRefusalReason.MISSING) ? "Fence required" : "Fence header refused",
                refusal.getMessage(),
                properties);
    }

    private static String path(HttpServletRequest request) {
        return request.getRequestURI();
    }
}
