package org.springframework.boot.testcontainers.service.connection;

import java.util.Map;
import org.springframework.boot.origin.Origin;
import org.springframework.core.annotation.MergedAnnotation;
import org.testcontainers.containers.Container;

/**
 * Builds the source that {@code @ServiceConnection} hands to connection details factories, whose
 * constructor Spring Boot keeps package-private: factories can then be tested without Docker.
 */
public final class TestContainerConnectionSources {

    private TestContainerConnectionSources() {}

    /** The source of a {@code @ServiceConnection} field holding {@code container} of {@code image}. */
    public static <C extends Container<?>> ContainerConnectionSource<C> of(
            Class<C> type, C container, String image, String name) {
        MergedAnnotation<ServiceConnection> annotation =
                MergedAnnotation.of(ServiceConnection.class, Map.of("name", name));
        Origin origin = new Origin() {
            @Override
            public String toString() {
                return "test field holding " + image;
            }
        };
        return new ContainerConnectionSource<>("test", origin, type, image, annotation, () -> container, null, null);
    }
}
