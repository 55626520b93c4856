package dev.fencelock.autoconfigure.web;

import dev.fencelock.LockLostException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** An application's own answer to a lost lock, with no order of its own: it must still answer first. */
@RestControllerAdvice
class ApplicationLockLostHandler {

    @ExceptionHandler
    ResponseEntity<String> lockLost(LockLostException ex) {
        return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("the application's own answer");
    }
}
