package dev.fencelock.etcd;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockStoreAccessDeniedException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import java.io.IOException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Why etcd refused this client, or this client refused etcd: credentials, permissions, a stale
 * authentication token, TLS. These are told apart from an unreachable etcd, because they do not go
 * away by trying again (except a stale token, which jetcd replaces on the next call), and the
 * errors name what to change. No message carries a password or key material.
 */
final class EtcdRefusals {

    private static final String INVALID_TOKEN = "etcdserver: invalid auth token";

    private static final String OLD_AUTH_REVISION = "etcdserver: revision of auth store is old";

    private static final String AUTH_FAILED = "etcdserver: authentication failed";

    private static final String AUTH_NOT_ENABLED = "etcdserver: authentication is not enabled";

    private static final String USER_EMPTY = "etcdserver: user name is empty";

    private EtcdRefusals() {}

    /**
     * Who this client is to etcd, for errors that explain a refusal.
     *
     * @param user the user name of its credentials, or {@code null} without
     * @param tls whether it speaks TLS
     */
    record Identity(List<String> endpoints, @Nullable String user, String namespace, boolean tls) {}

    /** The TLS handshake failed; not temporary, so an acquisition fails at once instead of retrying. */
    static final class TlsFailureException extends LockBackendUnavailableException {

        private static final long serialVersionUID = 1L;

        TlsFailureException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Whether etcd refused the request's authentication token as expired or outdated. etcd checks the
     * token before it proposes anything (and the auth revision before it applies), so nothing was
     * written; jetcd has dropped the token, and the next call authenticates afresh.
     */
    static boolean isStaleToken(Throwable failure) {
        return anyCause(failure, cause -> {
            String description = descriptionOf(cause);
            return INVALID_TOKEN.equals(description) || OLD_AUTH_REVISION.equals(description);
        });
    }

    /** Whether trying again cannot help: access denied, or TLS failed. */
    static boolean isFinal(Throwable failure) {
        return anyCause(
                failure,
                cause -> cause instanceof LockStoreAccessDeniedException || cause instanceof TlsFailureException);
    }

    /** {@code failure} as a refusal naming its cause and the fix, or {@code null} if it is none. */
    static @Nullable LockException explain(Throwable failure, Identity identity, String what) {
        String where = "etcd " + identity.endpoints();
        String user = (identity.user() != null) ? "user '" + identity.user() + "'" : "this client";
        if (anyCause(failure, cause -> hasCode(cause, Status.Code.PERMISSION_DENIED))) {
            return new LockStoreAccessDeniedException(
                    where + " denied " + user + " permission while " + what + " (etcd: permission denied): "
                            + "its roles must allow reading and writing every key under '" + identity.namespace()
                            + "/'; see FenceLock's security guide for the etcdctl commands",
                    failure);
        }
        if (anyCause(failure, cause -> startsWith(cause, AUTH_FAILED))) {
            return new LockStoreAccessDeniedException(
                    where + " refused the credentials of " + user + " while " + what
                            + ": authentication failed (wrong user name or password); check the credentials",
                    failure);
        }
        if (anyCause(failure, cause -> startsWith(cause, AUTH_NOT_ENABLED))) {
            return new LockStoreAccessDeniedException(
                    where + " has authentication turned off, but this client authenticates as " + user + " (while "
                            + what + "); remove the credentials, or enable authentication on etcd",
                    failure);
        }
        if (anyCause(failure, cause -> startsWith(cause, USER_EMPTY))) {
            return new LockStoreAccessDeniedException(
                    where + " requires authentication, but this client sent no credentials (while " + what
                            + "); configure a user name and password",
                    failure);
        }
        return explainTls(failure, identity, where, what);
    }

    private static @Nullable LockException explainTls(Throwable failure, Identity identity, String where, String what) {
        String alert = innermostMessage(
                failure,
                cause -> String.valueOf(cause.getMessage())
                        .toLowerCase(Locale.ROOT)
                        .contains("received fatal alert"));
        if (alert != null) {
            String lower = alert.toLowerCase(Locale.ROOT);
            if (lower.contains("certificate")
                    || lower.contains("unknown_ca")
                    || lower.contains("access_denied")
                    || lower.contains("handshake_failure")) {
                return new LockStoreAccessDeniedException(
                        where + " refused this client's TLS certificate while " + what + " (" + alert + "): "
                                + "etcd runs with --client-cert-auth; configure a client certificate and key issued "
                                + "by a certificate authority in etcd's --trusted-ca-file",
                        failure);
            }
        }
        if (anyCause(failure, cause -> cause.getClass().getSimpleName().equals("NotSslRecordException"))) {
            return tlsToPlainText(identity, what, failure);
        }
        if (anyCause(failure, cause -> cause instanceof SSLException || cause instanceof CertificateException)) {
            String reason = innermostMessage(failure, cause -> true);
            return new TlsFailureException(
                    where + ": the TLS handshake failed while " + what + " (" + reason + "); " + tlsHint(reason),
                    failure);
        }
        return null;
    }

    private static String tlsHint(@Nullable String reason) {
        String lower = String.valueOf(reason).toLowerCase(Locale.ROOT);
        if (lower.contains("certification path") || lower.contains("pkix")) {
            return "the server's certificate is not trusted: trust the certificate authority that issued it";
        }
        if (lower.contains("subject alternative name") || lower.contains("no name matching")) {
            return "the server's certificate does not name the endpoint's host: connect to a name it carries, "
                    + "or set the authority to one";
        }
        if (lower.contains("expired") || lower.contains("not yet valid")) {
            return "a certificate is outside its validity period";
        }
        return "check the certificates on both sides";
    }

    /**
     * The hint for a connection that etcd dropped before answering while this client speaks plain
     * text, after a TLS handshake showed that the port serves TLS.
     */
    static TlsFailureException plainTextToTls(Identity identity, String what, Throwable failure) {
        return new TlsFailureException(
                "etcd " + identity.endpoints() + " serves TLS, but this client speaks plain text (while " + what
                        + "): use https:// endpoints and configure TLS",
                failure);
    }

    /** The error for a TLS client at a port that speaks plain text. */
    static TlsFailureException tlsToPlainText(Identity identity, String what, Throwable failure) {
        return new TlsFailureException(
                "etcd " + identity.endpoints() + " does not speak TLS on this port (TLS client, plain-text server)"
                        + " while " + what + "; use http:// endpoints without TLS, or serve TLS on etcd",
                failure);
    }

    /** Whether the connection closed during the TLS handshake: the way a plain-text port drops a TLS client. */
    static boolean isClosedDuringHandshake(Throwable failure) {
        return anyCause(
                failure,
                cause -> String.valueOf(cause.getMessage())
                        .contains("Connection closed while performing TLS negotiation"));
    }

    /**
     * Whether the connection was dropped under the request, the way a TLS port drops a plain-text client:
     * closed ("Network closed for unknown reason"), or reset when some of the client's bytes were still
     * unread there ("Connection reset"); which of the two depends on timing alone.
     */
    static boolean isDroppedWithoutAnswer(Throwable failure) {
        return anyCause(failure, cause -> {
            String message = String.valueOf(cause.getMessage());
            return message.contains("Network closed for unknown reason")
                    || (cause instanceof IOException && message.contains("Connection reset"));
        });
    }

    private static boolean hasCode(Throwable cause, Status.Code code) {
        if (cause instanceof EtcdException etcd && etcd.getErrorCode().name().equals(code.name())) {
            return true;
        }
        return Status.fromThrowable(cause).getCode() == code;
    }

    private static boolean startsWith(Throwable cause, String text) {
        String description = descriptionOf(cause);
        return description != null && description.startsWith(text);
    }

    /** The gRPC status description of {@code cause} itself, or its message for jetcd's own exceptions. */
    private static @Nullable String descriptionOf(Throwable cause) {
        if (cause instanceof io.grpc.StatusRuntimeException || cause instanceof io.grpc.StatusException) {
            return Status.fromThrowable(cause).getDescription();
        }
        if (cause instanceof EtcdException) {
            return cause.getMessage();
        }
        return null;
    }

    private static @Nullable String innermostMessage(Throwable failure, Predicate<Throwable> test) {
        String found = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (test.test(cause) && cause.getMessage() != null) {
                found = cause.getMessage();
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return found;
    }

    private static boolean anyCause(Throwable failure, Predicate<Throwable> test) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (test.test(cause)) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }
}
