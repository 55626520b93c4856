package dev.fencelock.sample.stock;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the API's failures into RFC 9457 problem details whose {@code type} names the case, so
 * clients (and the demo script) can tell a stale write from a busy lock without parsing text.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE) // before Spring MVC's own problem details, for unreadable bodies
class InventoryProblems {

    static final String TYPES = "https://fencelock.dev/problems/";

    @ExceptionHandler
    ProblemDetail unknownSku(UnknownSkuException ex) {
        return problem(HttpStatus.NOT_FOUND, "unknown-sku", "Unknown SKU", ex);
    }

    @ExceptionHandler({InvalidRequestException.class, InvalidLockKeyException.class})
    ProblemDetail invalidRequest(RuntimeException ex) {
        return problem(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", ex);
    }

    @ExceptionHandler
    ProblemDetail unreadableBody(HttpMessageNotReadableException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.BAD_REQUEST, "Request body is not the expected JSON object");
        problem.setType(URI.create(TYPES + "invalid-request"));
        problem.setTitle("Invalid request");
        return problem;
    }

    @ExceptionHandler
    ProblemDetail insufficientStock(InsufficientStockException ex) {
        return problem(HttpStatus.UNPROCESSABLE_CONTENT, "insufficient-stock", "Insufficient stock", ex);
    }

    @ExceptionHandler
    ProblemDetail staleToken(FencingTokenRejectedException ex) {
        ProblemDetail problem =
                problem(HttpStatus.CONFLICT, "stale-fencing-token", "Stale fencing token: write refused", ex);
        // Only a reservation knows who refused (StaleWriteException); anything else is not guessed.
        describeRefusal(problem, ex, null);
        return problem;
    }

    @ExceptionHandler
    ProblemDetail lockLost(LockLostException ex) {
        ProblemDetail problem =
                problem(HttpStatus.CONFLICT, "lock-lost", "Lock lost before the reservation completed", ex);
        // The method's own failure, if any, rides along as a suppressed exception.
        FencingTokenRejectedException refusal = Arrays.stream(ex.getSuppressed())
                .filter(FencingTokenRejectedException.class::isInstance)
                .map(FencingTokenRejectedException.class::cast)
                .findFirst()
                .orElse(null);
        // Without a refused write, the instance knew the lock was lost and sent none.
        describeRefusal(problem, refusal, "client");
        return problem;
    }

    private static void describeRefusal(
            ProblemDetail problem, @Nullable FencingTokenRejectedException refusal, @Nullable String defaultRefusedBy) {
        @Nullable String refusedBy = defaultRefusedBy;
        if (refusal != null) {
            problem.setProperty("fencingToken", refusal.getToken());
            if (refusal instanceof StaleWriteException stale) {
                refusedBy = stale.refuser().name().toLowerCase(Locale.ROOT);
            }
        }
        if (refusedBy != null) {
            problem.setProperty("refusedBy", refusedBy);
        }
    }

    @ExceptionHandler
    ProblemDetail lockTimeout(LockAcquisitionTimeoutException ex) {
        return problem(HttpStatus.LOCKED, "lock-timeout", "Lock not acquired within the wait timeout", ex);
    }

    @ExceptionHandler
    ProblemDetail lockQueueFull(LockQueueFullException ex) {
        return problem(HttpStatus.TOO_MANY_REQUESTS, "lock-queue-full", "Too many callers wait for this lock", ex);
    }

    @ExceptionHandler
    ProblemDetail backendUnavailable(LockBackendUnavailableException ex) {
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "lock-backend-unavailable", "Lock store unavailable", ex);
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, Exception ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
        problem.setType(URI.create(TYPES + type));
        problem.setTitle(title);
        return problem;
    }
}
