package dev.fencelock.jdbc;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The fences a transaction presents, as the database's own check reads them from the session: for
 * each fence row, {@code <token>:<row key>}, separated by U+001E (no resource name contains a
 * control character, and a token has no colon). A transaction that rides on another's fence row
 * lock starts with {@code R}: the database refuses its writes to protected tables at once rather
 * than wait for a lock its own thread holds.
 */
final class SessionFence {

    static final char SEPARATOR = '\u001E';

    static final String RIDER = "R";

    private SessionFence() {}

    /** The session value for {@code rows} presented with their tokens. */
    static String of(List<Row> rows, boolean rider) {
        String value = rows.stream()
                .map(row -> row.token() + ":" + row.key())
                .collect(Collectors.joining(String.valueOf(SEPARATOR)));
        return rider ? RIDER + value : value;
    }

    /** One fence row: its key (the resource, with the scope if there is one) and the token presented to it. */
    record Row(String key, long token) {}
}
