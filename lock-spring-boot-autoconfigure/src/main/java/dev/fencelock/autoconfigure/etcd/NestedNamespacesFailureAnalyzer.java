package dev.fencelock.autoconfigure.etcd;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports {@link NestedNamespacesException} as Spring Boot's "application failed to start" description and action. */
class NestedNamespacesFailureAnalyzer extends AbstractFailureAnalyzer<NestedNamespacesException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NestedNamespacesException cause) {
        return new FailureAnalysis(
                NestedNamespacesException.description(cause.getNamespace(), cause.getOthers(), cause.getWhere()),
                NestedNamespacesException.action(cause.getNamespace()),
                cause);
    }
}
