package dev.fencelock.interceptor;

import java.util.List;

/**
 * Stops the application because {@link dev.fencelock.annotation.DistributedLock @DistributedLock}
 * methods would run without their lock or fail on every call. Under Spring Boot, FenceLock's
 * failure analyzer turns it into Boot's startup report.
 */
public class UnusableDistributedLockMethodsException extends IllegalStateException {

    private final List<String> problems;

    /**
     * Creates the exception.
     *
     * @param problems one line per problem, naming the method or bean and what to change
     */
    public UnusableDistributedLockMethodsException(List<String> problems) {
        super("Found " + problems.size() + " unusable @DistributedLock method(s):\n - "
                + String.join("\n - ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, naming the method or bean and what to change. */
    public List<String> getProblems() {
        return this.problems;
    }
}
