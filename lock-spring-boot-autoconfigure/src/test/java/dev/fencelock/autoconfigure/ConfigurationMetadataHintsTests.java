package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.fencelock.autoconfigure.http.FenceLockHttpProperties;
import dev.fencelock.jdbc.FenceDialect;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The value hints that let an IDE complete {@code fencelock.*} values: every constant of an
 * enum-valued property is offered, in the kebab case Spring Boot binds, and nothing else is.
 */
class ConfigurationMetadataHintsTests {

    static List<Arguments> enumProperties() {
        return List.of(
                Arguments.of("fencelock.backend", FenceLockProperties.Backend.class),
                Arguments.of("fencelock.fencing.jdbc.initialize-schema", FenceLockProperties.InitializationMode.class),
                Arguments.of("fencelock.fencing.jdbc.dialect", FenceDialect.class),
                Arguments.of("fencelock.http.server.trust", FenceLockHttpProperties.Trust.class));
    }

    @ParameterizedTest
    @MethodSource("enumProperties")
    void everyConstantOfAnEnumPropertyIsAHintedValue(String property, Class<? extends Enum<?>> type)
            throws IOException {
        List<String> constants = Arrays.stream(type.getEnumConstants())
                .map((constant) -> constant.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .toList();
        List<String> hinted = JsonPath.read(metadata(), "$.hints[?(@.name == '" + property + "')].values[*].value");
        assertThat(hinted).containsExactlyInAnyOrderElementsOf(constants);
        List<String> described =
                JsonPath.read(metadata(), "$.hints[?(@.name == '" + property + "')].values[*].description");
        assertThat(described)
                .hasSameSizeAs(constants)
                .allSatisfy((text) -> assertThat(text).isNotBlank());
    }

    @Test
    void everyHintNamesAPropertyThatExists() throws IOException {
        List<String> hints = JsonPath.read(metadata(), "$.hints[*].name");
        List<String> properties = JsonPath.read(metadata(), "$.properties[*].name");
        assertThat(hints).isNotEmpty();
        assertThat(properties).containsAll(hints);
    }

    /** This module's merged metadata, as the configuration processor wrote it. */
    private static String metadata() throws IOException {
        for (URL url : Collections.list(ConfigurationMetadataHintsTests.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (json.contains("\"fencelock.backend\"")) {
                    return json;
                }
            }
        }
        throw new IllegalStateException("No FenceLock configuration metadata on the class path");
    }
}
