package dev.fencelock.autoconfigure;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockStoreAccessDeniedException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports the startup check of the lock store ({@code fencelock.etcd.verify-on-startup}) when etcd
 * refused this application (credentials, permissions, client certificate) or the TLS handshake
 * failed: what was refused, and which settings to look at. An etcd that merely cannot be reached
 * does not stop startup, so it never shows up here.
 */
class LockStoreRefusedFailureAnalyzer extends AbstractFailureAnalyzer<LockException> {

    private static final String SKIP = " To start without this check, set fencelock.etcd.verify-on-startup=false.";

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, LockException cause) {
        if (cause instanceof LockStoreAccessDeniedException) {
            return new FailureAnalysis(
                    "The lock store refused this application: " + cause.getMessage(),
                    "Check fencelock.etcd.username and fencelock.etcd.password, the client certificate of"
                            + " fencelock.etcd.ssl.bundle, and that the user's etcd role may read and write every key"
                            + " under the namespace (FenceLock's security guide lists the etcdctl commands)."
                            + SKIP,
                    cause);
        }
        if (cause instanceof LockBackendUnavailableException
                && String.valueOf(cause.getMessage()).contains("TLS")) {
            return new FailureAnalysis(
                    "The lock store could not be reached over TLS: " + cause.getMessage(),
                    "Make fencelock.etcd.endpoints use https:// exactly when TLS is on, and give"
                            + " fencelock.etcd.ssl.bundle the certificate authority that issued etcd's certificate"
                            + " (and a client certificate if etcd runs with --client-cert-auth)."
                            + SKIP,
                    cause);
        }
        return null;
    }
}
