package dev.fencelock.verification.worker;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Appends one JSON object per event to the worker's history file, each line handed to the operating system at
 * once: a worker killed in the middle loses nothing it had written, at most half a line.
 */
final class HistoryWriter implements AutoCloseable {

    private final BufferedWriter out;

    HistoryWriter(Path file) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
    }

    /**
     * Writes {@code {"type":type,"t":now,"op":operation, name: value, ...}}; values are strings, numbers, booleans
     * or null.
     */
    void write(String type, String operation, @Nullable Object... fields) {
        long now = System.nanoTime();
        StringBuilder line = new StringBuilder(128);
        line.append("{\"type\":\"").append(type).append("\",\"t\":").append(now).append(",\"op\":");
        quote(line, operation);
        for (int i = 0; i + 1 < fields.length; i += 2) {
            line.append(',');
            quote(line, String.valueOf(fields[i]));
            line.append(':');
            Object value = fields[i + 1];
            if (value == null || value instanceof Number || value instanceof Boolean) {
                line.append(value);
            } else {
                quote(line, value.toString());
            }
        }
        line.append("}\n");
        synchronized (this) {
            try {
                out.write(line.toString());
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("could not write the history", e);
            }
        }
    }

    private static void quote(StringBuilder line, String value) {
        line.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    if (c < 0x20) {
                        line.append(String.format("\\u%04x", (int) c));
                    } else {
                        line.append(c);
                    }
                }
            }
        }
        line.append('"');
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
