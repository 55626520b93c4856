package org.springframework.boot.docker.compose.service.connection;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.mock.env.MockEnvironment;

/**
 * Builds the source that Spring Boot's Docker Compose support hands to connection details
 * factories, whose constructor Boot keeps package-private: factories can then be tested without
 * Docker.
 */
public final class TestDockerComposeConnectionSources {

    private TestDockerComposeConnectionSources() {}

    public static DockerComposeConnectionSource of(RunningService service) {
        return new DockerComposeConnectionSource(service, new MockEnvironment());
    }
}
