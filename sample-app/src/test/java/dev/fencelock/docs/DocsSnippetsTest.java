package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every ```java block of README.md and docs/*.md appears, ignoring whitespace, in a Java source
 * file the build compiles, so a snippet cannot drift away from an API that changed. A block that
 * is deliberately not complete Java is fenced as ```java no-check and listed by this test.
 *
 * <p>A snippet opens with the imports it needs, so a reader can paste it: its code after the
 * imports appears in a source file, each of its imports is an import of that file, and every type
 * (or static member) that file imports and the snippet's code names is imported by the snippet.
 */
class DocsSnippetsTest {

    private static final Pattern BLOCK =
            Pattern.compile("^```java([^\\n]*)\\n(.*?)^```\\s*$", Pattern.MULTILINE | Pattern.DOTALL);

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private static final Pattern IMPORT =
            Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+)\\s*;\\s*$", Pattern.MULTILINE);

    record Snippet(Path document, int line, String code, boolean checked) {

        /** The snippet's leading import lines, as written. */
        List<String> imports() {
            return leadingImports(this.code);
        }

        /** The snippet's code after its imports. */
        String body() {
            String[] lines = this.code.split("\\n", -1);
            int first = 0;
            while (first < lines.length
                    && (lines[first].isBlank() || IMPORT.matcher(lines[first]).matches())) {
                first++;
            }
            return String.join("\n", Arrays.asList(lines).subList(first, lines.length));
        }

        @Override
        public String toString() {
            return RepositoryFiles.root().relativize(this.document) + ":" + this.line + "\n" + this.code;
        }
    }

    record Source(Path path, String normalised, List<String> imports) {}

    @Test
    void everyJavaSnippetIsPartOfACompiledSource() {
        List<Source> sources = sources();
        List<Snippet> snippets = snippets();
        assertThat(snippets).as("java snippets found").isNotEmpty();

        List<Snippet> missing = snippets.stream()
                .filter(Snippet::checked)
                .filter(snippet -> containing(sources, snippet).isEmpty())
                .toList();

        assertThat(missing)
                .as(
                        "snippets that no compiled source contains; keep them in sample-app/src/test/java/dev/fencelock/docs")
                .isEmpty();
        snippets.stream()
                .filter(snippet -> !snippet.checked())
                .forEach(snippet -> System.out.println("not checked (java no-check): " + snippet));
    }

    @Test
    void everyJavaSnippetImportsWhatItUses() {
        List<Source> sources = sources();
        List<String> problems = new ArrayList<>();
        for (Snippet snippet : snippets()) {
            List<Source> candidates = containing(sources, snippet);
            if (!snippet.checked() || candidates.isEmpty()) {
                continue;
            }
            List<String> findings = candidates.stream()
                    .map(source -> importProblems(snippet, source))
                    .toList();
            if (findings.stream().noneMatch(String::isEmpty)) {
                problems.add(snippet + "\n" + findings.get(0));
            }
        }
        assertThat(problems)
                .as("snippets whose imports differ from what their source file imports for the code they show")
                .isEmpty();
    }

    private static String importProblems(Snippet snippet, Source source) {
        List<String> snippetImports = snippet.imports();
        List<String> unknown = snippetImports.stream()
                .filter(name -> !source.imports().contains(name))
                .toList();
        String body = snippet.body();
        List<String> lacking = source.imports().stream()
                .filter(name -> !snippetImports.contains(name))
                .filter(name -> Pattern.compile("\\b" + Pattern.quote(simpleName(name)) + "\\b")
                        .matcher(body)
                        .find())
                .toList();
        if (unknown.isEmpty() && lacking.isEmpty()) {
            return "";
        }
        return "in " + RepositoryFiles.root().relativize(source.path()) + ": missing imports " + lacking
                + ", imports the source does not have " + unknown;
    }

    private static List<Source> sources() {
        return RepositoryFiles.javaSources().stream()
                .map(path -> {
                    String text = RepositoryFiles.read(path);
                    return new Source(path, normalise(text), allImports(text));
                })
                .toList();
    }

    private static List<Source> containing(List<Source> sources, Snippet snippet) {
        String body = normalise(snippet.body());
        String whole = normalise(snippet.code());
        return sources.stream()
                .filter(source -> source.normalised().contains(body)
                        || source.normalised().contains(whole))
                .toList();
    }

    /** The import lines at the start of {@code code}, as {@code [static ]qualified.Name}. */
    private static List<String> leadingImports(String code) {
        List<String> imports = new ArrayList<>();
        for (String line : code.split("\\n")) {
            Matcher matcher = IMPORT.matcher(line);
            if (matcher.matches()) {
                imports.add(((matcher.group(1) != null) ? "static " : "") + matcher.group(2));
            } else if (!line.isBlank()) {
                break;
            }
        }
        return imports;
    }

    private static List<String> allImports(String source) {
        List<String> imports = new ArrayList<>();
        Matcher matcher = IMPORT.matcher(source);
        while (matcher.find()) {
            imports.add(((matcher.group(1) != null) ? "static " : "") + matcher.group(2));
        }
        return imports;
    }

    private static String simpleName(String qualified) {
        return qualified.substring(qualified.lastIndexOf('.') + 1);
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
