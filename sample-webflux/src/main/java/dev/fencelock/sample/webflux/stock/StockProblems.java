package dev.fencelock.sample.webflux.stock;

import java.net.URI;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The API's own failures as RFC 9457 problem details. FenceLock's exceptions (a stale write, a lost
 * or busy lock, an unavailable lock store) get theirs from FenceLock's starter, under the same
 * {@code type} prefix: a lost lock or a write the database refused is a 409.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class StockProblems {

    static final String TYPES = "https://fencelock.dev/problems/";

    @ExceptionHandler
    ProblemDetail unknownSku(UnknownSkuException ex) {
        return problem(HttpStatus.NOT_FOUND, "unknown-sku", "Unknown SKU", ex);
    }

    @ExceptionHandler
    ProblemDetail insufficientStock(InsufficientStockException ex) {
        return problem(HttpStatus.UNPROCESSABLE_CONTENT, "insufficient-stock", "Insufficient stock", ex);
    }

    @ExceptionHandler
    ProblemDetail invalidRequest(InvalidRequestException ex) {
        return problem(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", ex);
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, Exception ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, ex.getMessage());
        problem.setType(URI.create(TYPES + type));
        problem.setTitle(title);
        return problem;
    }
}
