package dev.fencelock.autoconfigure;

import dev.fencelock.LockClientBuilder;

/**
 * Callback that adjusts the {@link LockClientBuilder} of the auto-configured {@link
 * dev.fencelock.LockClient} before it is built: a callback executor, a try timeout, a listener
 * that is not a bean. Every bean of this type is applied in {@link org.springframework.core.Ordered
 * order}, after {@code fencelock.*} and the {@link dev.fencelock.LockEventListener} beans, so a
 * customizer may override them.
 */
@FunctionalInterface
public interface LockClientBuilderCustomizer {

    /** Customizes the builder. */
    void customize(LockClientBuilder builder);
}
