package dev.fencelock.web;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers FenceLock's exceptions that leave an annotated controller with RFC 9457 problem details,
 * in Spring MVC and in WebFlux alike, instead of a plain 500:
 *
 * <table>
 *   <caption>Exceptions and their answers</caption>
 *   <tr><th>exception</th><th>status</th><th>{@code type}, under {@value #TYPE_PREFIX}</th></tr>
 *   <tr><td>{@link FencingTokenRejectedException}</td><td>409</td><td>{@code stale-fencing-token}</td></tr>
 *   <tr><td>{@link LockLostException}</td><td>409</td><td>{@code lock-lost}</td></tr>
 *   <tr><td>{@link LockAcquisitionTimeoutException}</td><td>423</td><td>{@code lock-timeout}</td></tr>
 *   <tr><td>{@link LockQueueFullException}</td><td>429</td><td>{@code lock-queue-full}</td></tr>
 *   <tr><td>{@link LockBackendUnavailableException}</td><td>503, with {@code Retry-After}</td>
 *       <td>{@code lock-backend-unavailable}</td></tr>
 * </table>
 *
 * <p>Properties: {@code resource} (the lock's resource, when the exception knows it), {@code
 * fencingToken} (the refused or lost token), {@code acceptedToken} (the newer token the database had
 * already accepted, when its refusal reports it) and {@code refusedBy} ({@code client}: this instance
 * refused the write or found the loss itself; {@code database}: one of the database's checks
 * refused it) with {@code refusedAt}, the check that refused ({@code client}, {@code fence-table},
 * {@code protected-table}, {@code row}). The {@code detail} is the exception's message, except for an unavailable
 * lock store, whose message names the store's endpoints.
 *
 * <p>It has the lowest precedence: an {@code @ExceptionHandler} of the application's own, in its
 * controller or in an advice of its own, answers first.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockProblemDetailsExceptionHandler {

    /** Prefix of every {@code type} URI. */
    public static final String TYPE_PREFIX = "https://fencelock.dev/problems/";

    private final Duration retryAfter;

    /** @param retryAfter what {@code Retry-After} tells a caller of an unavailable lock store (whole seconds, at least 1) */
    public LockProblemDetailsExceptionHandler(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> staleFencingToken(FencingTokenRejectedException ex) {
        ProblemDetail problem =
                problem(HttpStatus.CONFLICT, "stale-fencing-token", "Stale fencing token: write refused", ex);
        problem.setProperty("fencingToken", ex.getToken());
        ex.getAcceptedToken().ifPresent((accepted) -> problem.setProperty("acceptedToken", accepted));
        refused(problem, ex.refusedBy());
        return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockLost(LockLostException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, "lock-lost", "Lock lost", ex);
        ex.fencingToken().ifPresent((token) -> problem.setProperty("fencingToken", token));
        // A write the database or this instance refused rides along as a suppressed exception;
        // without one, this instance found the loss itself and stopped.
        FencingTokenRejectedException refusal = null;
        for (Throwable suppressed : ex.getSuppressed()) {
            if (suppressed instanceof FencingTokenRejectedException rejected) {
                refusal = rejected;
                break;
            }
        }
        if (refusal != null) {
            refusal.getAcceptedToken().ifPresent((accepted) -> problem.setProperty("acceptedToken", accepted));
        }
        refused(problem, (refusal != null) ? refusal.refusedBy() : RefusedBy.CLIENT);
        return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockTimeout(LockAcquisitionTimeoutException ex) {
        return ResponseEntity.status(HttpStatus.LOCKED)
                .body(problem(HttpStatus.LOCKED, "lock-timeout", "Lock not acquired within the wait timeout", ex));
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockQueueFull(LockQueueFullException ex) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .body(problem(
                        HttpStatus.TOO_MANY_REQUESTS, "lock-queue-full", "Too many callers wait for this lock", ex));
    }

    @ExceptionHandler
    public ResponseEntity<ProblemDetail> lockStoreUnavailable(LockBackendUnavailableException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE,
                "The lock store did not answer in time: the lock was not taken and nothing was done. Try again later.");
        typed(problem, "lock-backend-unavailable", "Lock store unavailable", ex);
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, this.retryAfter.toSeconds())))
                .body(problem);
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, LockException ex) {
        return typed(ProblemDetail.forStatusAndDetail(status, ex.getMessage()), type, title, ex);
    }

    private static ProblemDetail typed(ProblemDetail problem, String type, String title, LockException ex) {
        problem.setType(URI.create(TYPE_PREFIX + type));
        problem.setTitle(title);
        ex.resource().ifPresent((resource) -> problem.setProperty("resource", resource));
        return problem;
    }

    /**
     * {@code refusedBy}: {@code client} when this instance refused, {@code database} for any of the
     * database's checks; {@code refusedAt}: which check ({@code client}, {@code fence-table}, {@code
     * protected-table} or {@code row}), as the audit line names it.
     */
    private static void refused(ProblemDetail problem, RefusedBy refusedBy) {
        problem.setProperty("refusedBy", (refusedBy == RefusedBy.CLIENT) ? "client" : "database");
        problem.setProperty(
                "refusedAt", refusedBy.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
}
