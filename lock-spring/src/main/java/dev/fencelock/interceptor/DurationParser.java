package dev.fencelock.interceptor;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the durations of {@code @DistributedLock(waitTimeout, leaseTtl)}, accepting what Spring
 * Boot's properties accept, so that an attribute and a {@code fencelock.*} property take the same
 * text: a whole number with an optional unit ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 1d}, also {@code ns} and {@code us}, in either case; a bare number counts milliseconds) or
 * ISO-8601 ({@code PT10S}).
 */
final class DurationParser {

    private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

    private static final Pattern ISO_8601 = Pattern.compile("^[+-]?[pP].*$");

    private static final Map<String, ChronoUnit> UNITS = Map.of(
            "ns", ChronoUnit.NANOS,
            "us", ChronoUnit.MICROS,
            "ms", ChronoUnit.MILLIS,
            "s", ChronoUnit.SECONDS,
            "m", ChronoUnit.MINUTES,
            "h", ChronoUnit.HOURS,
            "d", ChronoUnit.DAYS);

    private DurationParser() {}

    /**
     * Parses {@code value}.
     *
     * @throws IllegalArgumentException naming the value when it is not a duration or does not fit
     *     one
     */
    static Duration parse(String value) {
        Matcher simple = SIMPLE.matcher(value);
        if (simple.matches()) {
            String suffix = simple.group(2);
            ChronoUnit unit = suffix.isEmpty() ? ChronoUnit.MILLIS : UNITS.get(suffix.toLowerCase(Locale.ROOT));
            if (unit == null) {
                throw new IllegalArgumentException(
                        "'" + value + "' has an unknown unit '" + suffix + "'; use ns, us, ms, s, m, h or d");
            }
            try {
                return Duration.of(Long.parseLong(simple.group(1)), unit);
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException("'" + value + "' is too large for a duration", ex);
            }
        }
        if (ISO_8601.matcher(value).matches()) {
            try {
                return Duration.parse(value);
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException("'" + value + "' is not a valid ISO-8601 duration", ex);
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not a duration");
    }
}
