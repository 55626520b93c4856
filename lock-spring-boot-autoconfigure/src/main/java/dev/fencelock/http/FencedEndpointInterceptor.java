package dev.fencelock.http;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.annotation.FencedEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * for an unreadable one, 403 for one that cannot be trusted) and never reaches the handler. Where
 * the service trusts callers by mutual TLS, the client certificate is the one the Servlet
 * container verified ({@value #CERTIFICATES_ATTRIBUTE}).
 *
 * <p>The fences are bound to the request's thread: work the handler hands to another thread
 * (an async result, an executor) runs without them unless the application propagates context
 * (see {@code FencingContextAccessor}).
 */
public final class FencedEndpointInterceptor implements AsyncHandlerInterceptor {

    /** Set on a request to a fenced endpoint: the fences opened for it (empty when it has none). */
    public static final String FENCES_ATTRIBUTE = FencedEndpointInterceptor.class.getName() + ".fences";

    /** The Servlet request attribute of the client's verified certificate chain. */
    static final String CERTIFICATES_ATTRIBUTE = "jakarta.servlet.request.X509Certificate";

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
        FenceHeaderVerifier.Verified verified;
        try {
            verified = this.verifier.check(headers, optional, clientCertificates(request));
        } catch (FenceHeaderRefusedException refusal) {
            refuse(request, response, refusal);
            return false;
        }
        if (verified == null) {
            request.setAttribute(FENCES_ATTRIBUTE, List.of());
            return true;
        }
        List<FencingContext.Scope> scopes = new ArrayList<>(verified.fences().size());
        for (Fence fence : verified.fences()) {
            scopes.add(FencingContext.push(fence));
        }
        request.setAttribute(FENCES_ATTRIBUTE, verified.fences());
        request.setAttribute(SCOPES_ATTRIBUTE, scopes);
        FenceCaller caller = caller(request);
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
                FenceCaller caller = caller(request);
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
        FenceCaller caller = caller(request);
        this.listeners.forEach(listener -> listener.refused(caller, request.getMethod(), path(request), refusal));
        write(response, FenceProblems.refused(refusal));
    }

    static void write(HttpServletResponse response, FenceProblems.Problem problem) throws IOException {
        response.setStatus(problem.status());
        response.setContentType(FenceProblems.CONTENT_TYPE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(problem.json());
        response.flushBuffer();
    }

    /** The client's certificate chain, where the request came over TLS with one the server verified. */
    private static X509Certificate @Nullable [] clientCertificates(HttpServletRequest request) {
        return (request.getAttribute(CERTIFICATES_ATTRIBUTE) instanceof X509Certificate[] chain) ? chain : null;
    }

    private static FenceCaller caller(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return FenceCaller.of(
                (principal != null) ? principal.getName() : null,
                clientCertificates(request),
                String.valueOf(request.getRemoteAddr()));
    }

    private static String path(HttpServletRequest request) {
        return request.getRequestURI();
    }
}
