package dev.fencelock;

import java.text.Normalizer;
import java.util.Objects;

/**
 * A validated, normalised lock resource name.
 *
 * <p>Names are put into Unicode NFC first, so two spellings that look identical (a precomposed
 * {@code é} and {@code e} followed by a combining accent) lock the same resource instead of two
 * different ones. Control, format (zero-width) and unassigned characters, unpaired surrogates,
 * and leading or trailing white space are refused: they are nearly always a bug in the code that
 * built the name.
 */
public final class ResourceName {

    /** Longest accepted name, in characters after normalisation, unless a client sets its own. */
    public static final int DEFAULT_MAX_LENGTH = 255;

    private static final int PREVIEW_LENGTH = 40;

    private final String value;

    private ResourceName(String value) {
        this.value = value;
    }

    /**
     * Validates and normalises {@code raw}.
     *
     * @throws InvalidLockKeyException naming the problem and a short preview of the name
     */
    public static ResourceName of(String raw, int maxLength) {
        if (raw == null || raw.isEmpty()) {
            throw new InvalidLockKeyException("Lock resource name must not be empty");
        }
        String normalized = Normalizer.normalize(raw, Normalizer.Form.NFC);
        int length = normalized.codePointCount(0, normalized.length());
        if (length > maxLength) {
            throw new InvalidLockKeyException("Lock resource name '" + preview(normalized) + "' is " + length
                    + " characters long; at most " + maxLength
                    + " are allowed. Hash or shorten the variable part of the key.");
        }
        if (Character.isWhitespace(normalized.codePointAt(0))
                || Character.isWhitespace(normalized.codePointBefore(normalized.length()))) {
            throw new InvalidLockKeyException(
                    "Lock resource name '" + preview(normalized) + "' starts or ends with white space; trim the key.");
        }
        for (int i = 0; i < normalized.length(); ) {
            int codePoint = normalized.codePointAt(i);
            if (isForbidden(codePoint)) {
                throw new InvalidLockKeyException(String.format(
                        "Lock resource name '%s' contains the invisible or invalid character U+%04X at index %d;"
                                + " remove control, format and unassigned characters from the key.",
                        preview(normalized), codePoint, i));
            }
            i += Character.charCount(codePoint);
        }
        return new ResourceName(normalized);
    }

    private static boolean isForbidden(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.UNASSIGNED,
                    Character.PRIVATE_USE,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> true;
            default -> false;
        };
    }

    /** A printable, bounded rendering of a name for error messages and logs. */
    static String preview(String name) {
        StringBuilder out = new StringBuilder();
        name.codePoints().limit(PREVIEW_LENGTH).forEach(cp -> {
            if (Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        if (name.codePointCount(0, name.length()) > PREVIEW_LENGTH) {
            out.append("...");
        }
        return out.toString();
    }

    public String value() {
        return this.value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ResourceName that && this.value.equals(that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(this.value);
    }

    @Override
    public String toString() {
        return this.value;
    }
}
