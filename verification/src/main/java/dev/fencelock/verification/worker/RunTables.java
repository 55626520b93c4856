package dev.fencelock.verification.worker;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The tables of one run, all named from one prefix so that runs never share data: the counters, the history of
 * committed increments, the sequence that orders them, and the fence table.
 *
 * @param prefix a plain identifier unique to the run, such as {@code vr_1a2b3c}
 */
public record RunTables(String prefix) {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,40}");

    public RunTables {
        if (!IDENTIFIER.matcher(prefix).matches()) {
            throw new IllegalArgumentException("table prefix must be a short lower-case identifier: " + prefix);
        }
    }

    public String counters() {
        return prefix + "_counter";
    }

    public String history() {
        return prefix + "_history";
    }

    public String commitSequence() {
        return prefix + "_commit_seq";
    }

    public String fence() {
        return prefix + "_fence";
    }

    /** The tables the workers write, which the triggers-only runs protect: the counters and the history. */
    public List<String> written() {
        return List.of(counters(), history());
    }

    /**
     * The function the protected tables' triggers call, named after the fence table as {@code FenceProtection} names
     * it. Dropping the tables leaves it behind.
     */
    public String fenceCheckFunction() {
        return "fencelock_check_" + fence();
    }
}
