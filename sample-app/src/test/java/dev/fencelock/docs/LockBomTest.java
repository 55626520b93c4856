package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code lock-bom} lets an application declare FenceLock's artifacts, and ShedLock's, without
 * versions: ShedLock is not in Spring Boot's BOM, so the BOM pins the version that {@code
 * lock-shedlock} is built against. Spring Integration is left to Spring Boot's BOM.
 */
class LockBomTest {

    private static final Pattern DEPENDENCY = Pattern.compile(
            "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>([^<]+)</version>");

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

    @Test
    void theBomManagesEveryPublishedModuleAndTheShedLockTheBuildUses() {
        String bom = RepositoryFiles.read(RepositoryFiles.root().resolve("lock-bom/pom.xml"));
        String parent = RepositoryFiles.read(RepositoryFiles.root().resolve("pom.xml"));
        Map<String, String> managed = new LinkedHashMap<>();
        Matcher dependency = DEPENDENCY.matcher(bom);
        while (dependency.find()) {
            managed.put(dependency.group(1) + ":" + dependency.group(2), dependency.group(3));
        }

        assertThat(managed)
                .containsEntry("net.javacrumbs.shedlock:shedlock-core", "${shedlock.version}")
                .containsEntry("net.javacrumbs.shedlock:shedlock-spring", "${shedlock.version}")
                .doesNotContainKey("org.springframework.integration:spring-integration-core");
        assertThat(property(bom, "shedlock.version")).isEqualTo(property(parent, "shedlock.version"));
        Matcher module = MODULE.matcher(parent);
        while (module.find()) {
            String name = module.group(1);
            if (name.startsWith("lock-") && !name.equals("lock-bom")) {
                assertThat(managed).as("managed modules").containsKey("dev.fencelock:" + name);
            }
        }
    }

    private static String property(String pom, String name) {
        Matcher matcher =
                Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
        assertThat(matcher.find()).as(name + " in the pom").isTrue();
        return matcher.group(1);
    }
}
