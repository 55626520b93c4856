package dev.fencelock.sample.stock;

import dev.fencelock.InvalidLockKeyException;
import java.net.URI;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the API's own failures into RFC 9457 problem details whose {@code type} names the case, so
 * clients (and the demo script) can tell them apart without parsing text. FenceLock's exceptions (a
 * stale write, a lost or busy lock, an unavailable lock store) get theirs from FenceLock's starter,
 * under the same {@code type} prefix.
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

    private static ProblemDetail problem(HttpStatus status, String type, String title, Exception ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
        problem.setType(URI.create(TYPES + type));
        problem.setTitle(title);
        return problem;
    }
}
