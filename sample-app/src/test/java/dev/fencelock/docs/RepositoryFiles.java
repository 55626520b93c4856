package dev.fencelock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The repository's documentation and Java sources, found from the module the tests run in. */
final class RepositoryFiles {

    private RepositoryFiles() {}

    static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "No README.md and docs/ above " + Path.of("").toAbsolutePath());
    }

    /** README.md and every docs/*.md. */
    static List<Path> documents() {
        Path root = root();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return documents;
    }

    /** Every compiled Java source of every module: {@code src/<set>/java/**.java}, never {@code target}. */
    static List<Path> javaSources() {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(path -> path.toString().endsWith(".java"))
                    .filter(path -> {
                        String text = root().relativize(path).toString().replace('\\', '/');
                        return text.matches("[^/]+/src/[^/]+/java/.*") && !text.contains("/target/");
                    })
                    .toList();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
