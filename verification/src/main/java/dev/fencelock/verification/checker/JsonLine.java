package dev.fencelock.verification.checker;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses one history line: a flat JSON object whose values are strings, whole numbers, booleans or null. The
 * checker reads the files on its own terms instead of through the writer's code.
 */
final class JsonLine {

    private final String text;
    private int position;

    private JsonLine(String text) {
        this.text = text;
    }

    /**
     * The fields of {@code line} in their order; numbers as {@link Long}, JSON null as a {@code null} value.
     *
     * @throws IllegalArgumentException if the line is not such an object
     */
    static Map<String, Object> parse(String line) {
        JsonLine parser = new JsonLine(line);
        parser.skipWhitespace();
        Map<String, Object> fields = parser.object();
        parser.skipWhitespace();
        if (parser.position != line.length()) {
            throw parser.error("text after the object");
        }
        return fields;
    }

    private Map<String, Object> object() {
        Map<String, Object> fields = new LinkedHashMap<>();
        expect('{');
        skipWhitespace();
        if (peek() == '}') {
            position++;
            return fields;
        }
        while (true) {
            skipWhitespace();
            String name = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            fields.put(name, value());
            skipWhitespace();
            char next = next();
            if (next == '}') {
                return fields;
            }
            if (next != ',') {
                throw error("',' or '}' expected");
            }
        }
    }

    private Object value() {
        char c = peek();
        if (c == '"') {
            return string();
        }
        if (c == '-' || Character.isDigit(c)) {
            int start = position;
            position++;
            while (position < text.length() && Character.isDigit(text.charAt(position))) {
                position++;
            }
            return Long.parseLong(text.substring(start, position));
        }
        for (String literal : new String[] {"true", "false", "null"}) {
            if (text.startsWith(literal, position)) {
                position += literal.length();
                return literal.equals("null") ? null : Boolean.valueOf(literal);
            }
        }
        throw error("a string, a whole number, true, false or null expected");
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char escaped = next();
            switch (escaped) {
                case '"', '\\', '/' -> out.append(escaped);
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (position + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    out.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                    position += 4;
                }
                default -> throw error("unknown escape \\" + escaped);
            }
        }
    }

    private void skipWhitespace() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }

    private void expect(char wanted) {
        if (next() != wanted) {
            throw error("'" + wanted + "' expected");
        }
    }

    private char peek() {
        if (position >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(position);
    }

    private char next() {
        char c = peek();
        position++;
        return c;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at column " + (position + 1) + " of: " + text);
    }
}
