package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps every main-source file of the repository small enough to review in one sitting, and the
 * etcd backend's facade, where the protocol's entry points live, smaller still.
 */
class SourceSizeTest {

    private static final int MAX_LINES = 500;

    private static final int MAX_FACADE_LINES = 300;

    private final Path repository = Path.of("").toAbsolutePath().getParent();

    @Test
    void noMainSourceFileIsLongerThanFiveHundredLines() {
        Map<String, Long> sizes = mainSources();

        assertThat(sizes).as("main-source files of %s", this.repository).isNotEmpty();
        assertThat(sizes)
                .allSatisfy((file, lines) ->
                        assertThat(lines).as("lines of %s", file).isLessThanOrEqualTo(MAX_LINES));
    }

    @Test
    void theEtcdFacadeStaysWithinThreeHundredLines() {
        Map<String, Long> sizes = mainSources();

        assertThat(sizes).containsKey("lock-etcd/src/main/java/dev/fencelock/etcd/EtcdLockBackend.java");
        assertThat(sizes.get("lock-etcd/src/main/java/dev/fencelock/etcd/EtcdLockBackend.java"))
                .isLessThanOrEqualTo(MAX_FACADE_LINES);
    }

    private Map<String, Long> mainSources() {
        Map<String, Long> sizes = new TreeMap<>();
        try (Stream<Path> modules = Files.list(this.repository)) {
            for (Path module : modules.toList()) {
                Path sources = module.resolve("src/main/java");
                if (Files.isDirectory(sources)) {
                    for (Path file : javaFiles(sources)) {
                        sizes.put(this.repository.relativize(file).toString(), lineCount(file));
                    }
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return sizes;
    }

    private static List<Path> javaFiles(Path sources) throws IOException {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList();
        }
    }

    private static long lineCount(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
