package dev.fencelock.test.etcd;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Sums samples of the Prometheus text format, so tests can assert on etcd's own counters (for example how many
 * lease keep-alives a member received) without a metrics library.
 */
final class PrometheusSamples {

    private PrometheusSamples() {}

    /**
     * Adds up every sample of {@code metricName} whose labels include all pairs of {@code labelFilter}.
     *
     * @param labelFilter {@code name="value"} pairs separated by commas, all of which must be present on a
     *     sample; {@code null} or blank matches every sample
     * @return the sum, {@code 0.0} if no sample matches
     */
    static double sum(String exposition, String metricName, @Nullable String labelFilter) {
        Map<String, String> wanted = labelFilter == null || labelFilter.isBlank() ? Map.of() : labels(labelFilter);
        double total = 0;
        for (String line : exposition.split("\n")) {
            total += matchingValue(line.strip(), metricName, wanted);
        }
        return total;
    }

    private static double matchingValue(String line, String metricName, Map<String, String> wanted) {
        if (line.startsWith("#") || !line.startsWith(metricName) || line.length() == metricName.length()) {
            return 0;
        }
        int afterName = metricName.length();
        char next = line.charAt(afterName);
        Map<String, String> labels = Map.of();
        int valueStart = afterName;
        if (next == '{') {
            int close = closingBrace(line, afterName);
            if (close < 0) {
                return 0;
            }
            labels = labels(line.substring(afterName + 1, close));
            valueStart = close + 1;
        } else if (!Character.isWhitespace(next)) {
            return 0; // another metric whose name merely starts with metricName
        }
        if (!labels.entrySet().containsAll(wanted.entrySet())) {
            return 0;
        }
        return value(line.substring(valueStart).strip().split("\\s+")[0]);
    }

    private static int closingBrace(String line, int openAt) {
        boolean quoted = false;
        for (int i = openAt + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == '}' && !quoted) {
                return i;
            }
        }
        return -1;
    }

    /** Parses {@code a="x",b="y"}; label values may contain commas, quotes are backslash-escaped. */
    static Map<String, String> labels(String text) {
        Map<String, String> labels = new HashMap<>();
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            if (equals < 0 || equals + 1 >= text.length() || text.charAt(equals + 1) != '"') {
                throw new IllegalArgumentException("not a list of name=\"value\" labels: " + text);
            }
            String name = text.substring(i, equals).strip();
            StringBuilder value = new StringBuilder();
            int j = equals + 2;
            while (j < text.length() && text.charAt(j) != '"') {
                if (text.charAt(j) == '\\' && j + 1 < text.length()) {
                    j++;
                }
                value.append(text.charAt(j));
                j++;
            }
            if (j >= text.length()) {
                throw new IllegalArgumentException("unterminated label value in: " + text);
            }
            labels.put(name, value.toString());
            i = j + 1;
            while (i < text.length() && (text.charAt(i) == ',' || Character.isWhitespace(text.charAt(i)))) {
                i++;
            }
        }
        return labels;
    }

    private static double value(String token) {
        switch (token) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                return Double.parseDouble(token);
        }
    }
}
