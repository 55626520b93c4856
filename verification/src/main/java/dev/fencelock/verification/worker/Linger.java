package dev.fencelock.verification.worker;

import java.time.Duration;

/**
 * An order from the orchestrator: the next operation that reaches {@code phase} stays there for {@code duration}
 * and says so on standard output, so that a fault (a pause, a cut, a force-release) lands inside its critical
 * section instead of wherever the worker happens to be.
 *
 * @param phase where to stay
 * @param duration how long
 */
public record Linger(Phase phase, Duration duration) {

    /** Where in the critical section to stay. */
    public enum Phase {
        /** The lock is held; no statement has run yet. */
        AFTER_ACQUIRE,
        /** The counter has been read in the open transaction; nothing has been written yet. */
        AFTER_READ
    }

    /** The command line the worker reads: {@code linger AFTER_READ 300}. */
    public String command() {
        return "linger " + phase + " " + duration.toMillis();
    }

    /** Parses {@link #command()}. */
    static Linger parse(String command) {
        String[] parts = command.trim().split("\\s+");
        if (parts.length != 3 || !parts[0].equals("linger")) {
            throw new IllegalArgumentException("not a linger command: " + command);
        }
        return new Linger(Phase.valueOf(parts[1]), Duration.ofMillis(Long.parseLong(parts[2])));
    }
}
