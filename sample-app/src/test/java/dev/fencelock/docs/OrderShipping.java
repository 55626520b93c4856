package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.annotation.DistributedLock;
import org.springframework.transaction.annotation.Transactional;

/** README.md, "Quick start (Spring Boot)". */
class OrderShipping {

    @DistributedLock(key = "'order:' + #orderId", waitTimeout = "5s")
    @Transactional
    public void ship(long orderId) {
        long token = FencingContext.current().orElseThrow().token();
        // writes that carry the token
    }
}
