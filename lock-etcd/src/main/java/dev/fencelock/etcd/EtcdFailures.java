package dev.fencelock.etcd;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockOutcomeUnknownException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What a failed etcd request tells about its write: applied or not, or unknown. Every retry decision
 * of the backend rests on these answers, so they live in one place: a write may be sent again only
 * where it is guarded, and may be forgotten (no abandon marker) only where nothing can have been
 * written.
 */
final class EtcdFailures {

    private EtcdFailures() {}

    /** No answer within the time allowed: the request may or may not have been applied. */
    static final class NoAnswerException extends LockBackendUnavailableException {

        private static final long serialVersionUID = 1L;

        NoAnswerException(String message) {
            super(message);
        }
    }

    /** A connection failure under the request ({@code UNAVAILABLE}): it may or may not have been applied. */
    static boolean isUnavailable(Throwable failure) {
        return anyCause(failure, cause -> hasCode(cause, Status.Code.UNAVAILABLE));
    }

    /**
     * Whether {@code failure} says the request could not commit for want of a leader: etcd refused it
     * as {@code UNAVAILABLE} with a reason of its own ({@code etcdserver: no leader}, {@code leader
     * changed}, {@code request timed out}), or it got no answer in time. A connection that failed
     * under it ({@code UNAVAILABLE} from gRPC, a member that is down) is not such a sign.
     */
    static boolean isWithoutLeader(Throwable failure) {
        return isNoAnswer(failure)
                || anyCause(
                        failure,
                        cause -> hasCode(cause, Status.Code.UNAVAILABLE)
                                && String.valueOf(cause.getMessage()).contains("etcdserver: "));
    }

    /** Whether the request timed out on our side ({@link NoAnswerException}): its outcome is unknown. */
    static boolean isNoAnswer(Throwable failure) {
        return anyCause(failure, cause -> cause instanceof NoAnswerException);
    }

    /**
     * Whether {@code failure} proves that nothing of the request was written: etcd refused it with
     * {@code RESOURCE_EXHAUSTED} ({@code etcdserver: too many requests}, refused before proposing
     * when its apply lags its commits by too much; or no space left, refused before applying), or
     * the client never sent it, or its authentication token was stale (checked before proposing). jetcd
     * does not retry Txns, so no earlier attempt can have applied.
     */
    static boolean isKnownNotWritten(Throwable failure) {
        return EtcdRefusals.isStaleToken(failure)
                || anyCause(
                        failure,
                        cause -> cause instanceof TxnCoalescer.NotSentException
                                || hasCode(cause, Status.Code.RESOURCE_EXHAUSTED));
    }

    /**
     * Whether etcd refused the request because a lease it names no longer exists ({@code NOT_FOUND:
     * etcdserver: requested lease not found}). etcd checks leases before it applies anything, so a
     * Txn refused this way wrote nothing, for any of the requests it carried.
     */
    static boolean isLeaseGone(Throwable failure) {
        return anyCause(
                failure,
                cause -> cause instanceof SessionGoneException
                        || (hasCode(cause, Status.Code.NOT_FOUND)
                                && String.valueOf(cause.getMessage()).contains("lease not found")));
    }

    /** A put that was not sent because its session lease had already expired here. */
    static final class SessionGoneException extends LockBackendUnavailableException {

        private static final long serialVersionUID = 1L;

        SessionGoneException(String message) {
            super(message);
        }
    }

    /**
     * Whether etcd refused a read at a revision older than the one its history was compacted to
     * ({@code OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted}).
     */
    static boolean isCompacted(Throwable failure) {
        return anyCause(
                failure,
                cause -> hasCode(cause, Status.Code.OUT_OF_RANGE)
                        && String.valueOf(cause.getMessage()).contains("has been compacted"));
    }

    /**
     * Whether etcd refused a read at a revision newer than the answering member's own
     * ({@code OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision}).
     */
    static boolean isFutureRevision(Throwable failure) {
        return anyCause(
                failure,
                cause -> hasCode(cause, Status.Code.OUT_OF_RANGE)
                        && String.valueOf(cause.getMessage()).contains("future revision"));
    }

    /** Whether jetcd's exception or the gRPC status of {@code cause} carries {@code code}. */
    private static boolean hasCode(Throwable cause, Status.Code code) {
        if (cause instanceof EtcdException etcd && etcd.getErrorCode().name().equals(code.name())) {
            return true;
        }
        return Status.fromThrowable(cause).getCode() == code;
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

    /**
     * Why an acquisition ends without the lock after etcd refused or failed its puts {@code tries}
     * times until its deadline; {@code nothingWritten} when every put's answer proved nothing was;
     * {@code reason} says why etcd could not be reached where the refusal does not (or is empty).
     */
    static LockBackendUnavailableException refusedUntilDeadline(
            List<String> endpoints,
            ResourceName resource,
            int tries,
            Throwable refusal,
            boolean nothingWritten,
            String reason) {
        return new LockBackendUnavailableException(
                nothingWritten
                        ? "etcd " + endpoints + " refused the acquisition of lock '" + resource + "' " + tries
                                + " times within its wait time (overloaded: " + reasonOf(refusal)
                                + "); nothing was written"
                        : "etcd " + endpoints + " was unavailable for the acquisition of lock '" + resource
                                + "' within its wait time, after " + tries + " tries (" + reasonOf(refusal)
                                + "); nothing was granted." + reason,
                refusal);
    }

    /** The message of the innermost cause, for errors that name why etcd refused. */
    static String reasonOf(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage());
    }

    /**
     * The failure as the caller sees it: a {@link LockException} found under the future's wrappers
     * as it is, anything else as {@link LockBackendUnavailableException} naming the endpoints.
     */
    static LockException unavailable(List<String> endpoints, String what, Throwable failure) {
        LockException known = lockExceptionIn(failure);
        if (known != null) {
            return known;
        }
        Throwable cause = unwrapped(failure);
        String reason = (cause instanceof TimeoutException) ? "timed out" : cause.toString();
        return new LockBackendUnavailableException("etcd " + endpoints + " failed " + what + ": " + reason, cause);
    }

    /** The {@link LockException} under the future's wrappers, if that is what failed. */
    static @Nullable LockException lockExceptionIn(Throwable failure) {
        return (unwrapped(failure) instanceof LockException lockException) ? lockException : null;
    }

    private static Throwable unwrapped(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The acquisition's request id is taken by a key of another lease. */
    static LockException requestIdInUse(AcquireCommand command, long otherLease) {
        return new LockException("Request id '" + command.requestId() + "' of lock '" + command.resource()
                + "' is in use by another lease (" + otherLease + "); use a new request id");
    }

    /** The acquisition's request id has an abandon marker: an earlier put of it had an unknown outcome. */
    static LockException requestIdAbandoned(AcquireCommand command) {
        return new LockException("Request id '" + command.requestId() + "' of lock '" + command.resource()
                + "' was abandoned after an earlier failure; use a new request id");
    }

    /** etcd answered none of the acquisition's requests before its deadline. */
    static LockBackendUnavailableException unansweredUntilDeadline(
            List<String> endpoints, ResourceName resource, String because) {
        return new LockBackendUnavailableException("etcd " + endpoints + " did not answer within the wait time"
                + " for lock '" + resource + "'; nothing was granted." + because);
    }

    /** {@code known}, told apart as an unknown outcome: the acquisition's put may have been applied. */
    static LockOutcomeUnknownException outcomeUnknown(LockException known, AcquireCommand command) {
        return new LockOutcomeUnknownException(
                known.getMessage() + " Its write may have been applied: the key is removed in the background"
                        + (command.generatedRequestId()
                                ? "."
                                : ", unless a retry with request id '" + command.requestId() + "' adopts it first."),
                known);
    }
}
