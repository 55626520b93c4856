package dev.fencelock.autoconfigure.fencing;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@link LockStoreBehindFencesException} as Spring Boot's "application failed to start"
 * description and action: both numbers, and the restore procedure.
 */
class LockStoreBehindFencesFailureAnalyzer extends AbstractFailureAnalyzer<LockStoreBehindFencesException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockStoreBehindFencesException cause) {
        return new FailureAnalysis(
                LockStoreBehindFencesException.description(
                        cause.getStore(),
                        cause.getRevision(),
                        cause.getHighestToken(),
                        cause.getTable(),
                        cause.getScope(),
                        cause.getDataSourceBean()),
                LockStoreBehindFencesException.action(cause.getHighestToken()),
                cause);
    }
}
