package dev.fencelock.autoconfigure;

import dev.fencelock.interceptor.UnusableDistributedLockMethodsException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@link UnusableDistributedLockMethodsException} as Spring Boot's "application failed
 * to start" description and action, instead of a stack trace under "Error creating bean".
 */
class UnusableDistributedLockMethodsFailureAnalyzer
        extends AbstractFailureAnalyzer<UnusableDistributedLockMethodsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnusableDistributedLockMethodsException cause) {
        String description = cause.getProblems().size()
                + " @DistributedLock method(s) would run without their lock or fail on every call:\n\n - "
                + String.join("\n - ", cause.getProblems());
        String action = "Change each method or bean listed above as its entry says, or remove @DistributedLock"
                + " from it. FenceLock refuses to start rather than let an annotated method run unlocked.";
        return new FailureAnalysis(description, action, cause);
    }
}
