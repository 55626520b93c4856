package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md documents exactly the {@code fencelock.*} properties of the configuration
 * metadata that the auto-configuration ships: a new property without docs, or docs of a property
 * that is gone, fails the build.
 */
class ConfigurationDocsTest {

    private static final Pattern TABLE_ROW = Pattern.compile("^\\| `(fencelock\\.[^`]+)` \\|", Pattern.MULTILINE);

    @Test
    void everyPropertyIsDocumentedAndEveryDocumentedPropertyExists() throws IOException {
        Set<String> metadata = metadataProperties();
        Set<String> documented = documentedProperties();

        assertThat(metadata).as("fencelock.* properties in the metadata").isNotEmpty();
        assertThat(documented)
                .as("properties in docs/configuration.md (missing ones are in the metadata but not the docs)")
                .containsAll(metadata);
        assertThat(metadata)
                .as("properties in the metadata (extra ones are documented but do not exist)")
                .containsAll(documented);
    }

    private static Set<String> metadataProperties() throws IOException {
        Set<String> names = new TreeSet<>();
        for (URL url : Collections.list(ConfigurationDocsTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                List<String> properties =
                        JsonPath.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), "$.properties[*].name");
                properties.stream()
                        .filter(name -> name.startsWith("fencelock."))
                        .forEach(names::add);
            }
        }
        return names;
    }

    private static Set<String> documentedProperties() {
        Set<String> names = new TreeSet<>();
        Matcher row =
                TABLE_ROW.matcher(RepositoryFiles.read(RepositoryFiles.root().resolve("docs/configuration.md")));
        while (row.find()) {
            names.add(row.group(1));
        }
        return names;
    }
}
