package dev.fencelock.docs.bank;

import dev.fencelock.annotation.DistributedLock;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;

/**
 * Runs work under one account's lock. A bean of its own, because the lock is taken by a proxy: a
 * call through {@code this} would not be locked.
 */
@Component
public class AccountLock {

    @DistributedLock(key = "'account:' + #account", waitTimeout = "5s")
    public <T> T underLock(long account, Supplier<T> work) {
        return work.get();
    }
}
