package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every ```java block of README.md and docs/*.md appears, ignoring whitespace, in a Java source
 * file the build compiles, so a snippet cannot drift away from an API that changed. A block that
 * is deliberately not complete Java is fenced as ```java no-check and listed by this test.
 */
class DocsSnippetsTest {

    private static final Pattern BLOCK =
            Pattern.compile("^```java([^\\n]*)\\n(.*?)^```\\s*$", Pattern.MULTILINE | Pattern.DOTALL);

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    record Snippet(Path document, int line, String code, boolean checked) {

        @Override
        public String toString() {
            return RepositoryFiles.root().relativize(this.document) + ":" + this.line + "\n" + this.code;
        }
    }

    @Test
    void everyJavaSnippetIsPartOfACompiledSource() {
        List<String> sources = RepositoryFiles.javaSources().stream()
                .map(RepositoryFiles::read)
                .map(DocsSnippetsTest::normalise)
                .toList();
        List<Snippet> snippets = snippets();
        assertThat(snippets).as("java snippets found").isNotEmpty();

        List<Snippet> missing = snippets.stream()
                .filter(Snippet::checked)
                .filter(snippet -> sources.stream().noneMatch(source -> source.contains(normalise(snippet.code()))))
                .toList();

        assertThat(missing)
                .as(
                        "snippets that no compiled source contains; keep them in sample-app/src/test/java/dev/fencelock/docs")
                .isEmpty();
        snippets.stream()
                .filter(snippet -> !snippet.checked())
                .forEach(snippet -> System.out.println("not checked (java no-check): " + snippet));
    }

    static List<Snippet> snippets() {
        List<Snippet> snippets = new ArrayList<>();
        for (Path document : RepositoryFiles.documents()) {
            String text = RepositoryFiles.read(document);
            Matcher block = BLOCK.matcher(text);
            while (block.find()) {
                int line = 1
                        + (int) text.substring(0, block.start())
                                .chars()
                                .filter(c -> c == '\n')
                                .count();
                boolean checked = !block.group(1).trim().equals("no-check");
                snippets.add(new Snippet(document, line, block.group(2), checked));
            }
        }
        return snippets;
    }

    private static String normalise(String code) {
        return WHITESPACE.matcher(code).replaceAll("");
    }
}
