package dev.fencelock.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Runtime hints for the {@code fencelock} endpoint's responses, for a native image: the descriptor
 * records (and the records inside them) are written as JSON by reflection.
 */
public class FenceLockEndpointRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(
                        hints.reflection(),
                        FenceLockEndpoint.HeldLocksDescriptor.class,
                        FenceLockEndpoint.QueueDescriptor.class,
                        FenceLockEndpoint.ForceReleaseDescriptor.class);
    }
}
