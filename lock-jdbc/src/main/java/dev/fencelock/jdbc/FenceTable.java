package dev.fencelock.jdbc;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where the fence rows live: a validated table name and the length of its {@code resource}
 * column.
 *
 * <p>The name ends up inside SQL text (JDBC cannot bind identifiers), so it is checked against
 * a strict pattern instead of being quoted: letters, digits and underscores, starting with a
 * letter or underscore, optionally prefixed by a schema of the same form. Unquoted names fold
 * the way the database usually folds them, so the DDL and the guard always agree.
 *
 * @param name the table name, optionally {@code schema.table}
 * @param resourceLength the length of the {@code resource} column, in characters; longer
 *     resources are refused before any SQL runs
 */
public record FenceTable(String name, int resourceLength) {

    /** The table name used when none is configured. */
    public static final String DEFAULT_NAME = "fencelock_fence";

    /** The resource column length used when none is configured; matches the lock client's limit. */
    public static final int DEFAULT_RESOURCE_LENGTH = 255;

    // 63 is PostgreSQL's identifier limit, the smallest of the supported databases (MariaDB: 64).
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    public FenceTable {
        if (!isValidName(name)) {
            throw new IllegalArgumentException("Fence table name '" + printable(name)
                    + "' is not a plain identifier; use letters, digits and '_' (at most 63, not starting with a"
                    + " digit), optionally prefixed by 'schema.'");
        }
        // MariaDB's InnoDB keys are limited to 3072 bytes: 768 four-byte characters.
        if (resourceLength < 1 || resourceLength > 768) {
            throw new IllegalArgumentException("Fence table '" + name + "' resource column length must be between 1"
                    + " and 768 characters, not " + resourceLength);
        }
    }

    /** The default table ({@value #DEFAULT_NAME}, resource column of {@value #DEFAULT_RESOURCE_LENGTH}). */
    public static FenceTable defaults() {
        return new FenceTable(DEFAULT_NAME, DEFAULT_RESOURCE_LENGTH);
    }

    /** {@code name} with the default resource column length. */
    public static FenceTable named(String name) {
        return new FenceTable(name, DEFAULT_RESOURCE_LENGTH);
    }

    /** The schema the name is qualified with, or {@code null} when the session's current schema decides. */
    public @Nullable String schema() {
        int dot = this.name.indexOf('.');
        return (dot < 0) ? null : this.name.substring(0, dot);
    }

    private static boolean isValidName(String name) {
        int dot = name.indexOf('.');
        if (dot < 0) {
            return IDENTIFIER.matcher(name).matches();
        }
        return IDENTIFIER.matcher(name.substring(0, dot)).matches()
                && IDENTIFIER.matcher(name.substring(dot + 1)).matches();
    }

    private static String printable(String name) {
        String shown = (name.length() > 80) ? name.substring(0, 80) + "…" : name;
        return shown.codePoints()
                .collect(
                        StringBuilder::new,
                        (out, cp) -> {
                            if (Character.isISOControl(cp)) {
                                out.append(String.format("\\u%04x", cp));
                            } else {
                                out.appendCodePoint(cp);
                            }
                        },
                        StringBuilder::append)
                .toString();
    }

    @Override
    public String toString() {
        return this.name;
    }
}
