package dev.fencelock.autoconfigure.web;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import java.time.Duration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Endpoints that fail with each of FenceLock's exceptions an HTTP caller may meet. */
@RestController
class FailingController {

    private final LockClient locks;

    FailingController(LockClient locks) {
        this.locks = locks;
    }

    @GetMapping("/stale")
    String stale() {
        throw new FencingTokenRejectedException(
                "stock:apple", 7, 9L, "Token 7 for 'stock:apple' is stale", RefusedBy.FENCE_TABLE);
    }

    @GetMapping("/lost")
    String lost() {
        LockLostException lost = new LockLostException("Lock 'stock:apple' was lost", "stock:apple", 8, null);
        lost.addSuppressed(new FencingTokenRejectedException("stock:apple", 8, 9L, "refused", RefusedBy.FENCE_TABLE));
        throw lost;
    }

    @GetMapping("/lost-alone")
    String lostAlone() {
        throw new LockLostException("Lock 'stock:apple' was lost", "stock:apple", 8, null);
    }

    /** Waits no time for a lock the caller holds: the client names the resource of the timeout. */
    @GetMapping("/busy")
    String busy() {
        try (LockLease held = this.locks.acquire(LockRequest.of("stock:pear"))) {
            return this.locks
                    .acquire(LockRequest.builder("stock:pear")
                            .requestId("someone-else")
                            .waitTimeout(Duration.ZERO)
                            .build())
                    .toString();
        }
    }

    @GetMapping("/queue-full")
    String queueFull() {
        throw new LockQueueFullException("Lock 'stock:plum' already has 1000 waiting callers on this instance");
    }

    @GetMapping("/unavailable")
    String unavailable() {
        throw new LockBackendUnavailableException("etcd [http://10.0.0.1:2379] did not answer within the wait time");
    }
}
