package dev.fencelock.http;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes RFC 9457 problem details ({@code application/problem+json}) for fenced endpoints, by
 * hand: refusals are answered before any handler runs, where no message converter is at hand.
 */
final class FenceProblems {

    /** The problem types' common prefix, shared with the sample application's. */
    static final String TYPES = "https://fencelock.dev/problems/";

    private FenceProblems() {}

    /** Writes a problem; {@code properties} hold strings and numbers only. */
    static void write(
            HttpServletResponse response,
            int status,
            String type,
            String title,
            String detail,
            Map<String, Object> properties)
            throws IOException {
        StringBuilder json = new StringBuilder(256)
                .append("{\"type\":")
                .append(quote(TYPES + type))
                .append(",\"title\":")
                .append(quote(title))
                .append(",\"status\":")
                .append(status)
                .append(",\"detail\":")
                .append(quote(detail));
        properties.forEach((name, value) -> json.append(',')
                .append(quote(name))
                .append(':')
                .append((value instanceof Number) ? value.toString() : quote(String.valueOf(value))));
        json.append('}');
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(json.toString());
        response.flushBuffer();
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
