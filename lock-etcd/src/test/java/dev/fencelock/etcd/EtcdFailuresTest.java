package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What a failed request says about its write decides whether it is resent, abandoned with a marker
 * or forgotten. The costly mistake is to take an unknown outcome for "not written": the key would
 * be left behind, so those cases are checked here one by one.
 */
class EtcdFailuresTest {

    private static final List<String> ENDPOINTS = List.of("http://127.0.0.1:2379");

    @Test
    void aLostConnectionIsUnavailableWhetherGrpcOrJetcdReportsIt() {
        assertThat(EtcdFailures.isUnavailable(wrapped(Status.UNAVAILABLE.asRuntimeException())))
                .isTrue();
        assertThat(EtcdFailures.isUnavailable(
                        wrapped(EtcdExceptionFactory.newEtcdException(ErrorCode.UNAVAILABLE, "member gone"))))
                .isTrue();
        assertThat(EtcdFailures.isUnavailable(wrapped(Status.DEADLINE_EXCEEDED.asRuntimeException())))
                .isFalse();
    }

    @Test
    void onlyOurOwnTimeoutCountsAsNoAnswer() {
        assertThat(EtcdFailures.isNoAnswer(wrapped(new EtcdFailures.NoAnswerException("no answer"))))
                .isTrue();
        assertThat(EtcdFailures.isNoAnswer(wrapped(new LockBackendUnavailableException("refused"))))
                .isFalse();
        assertThat(EtcdFailures.isNoAnswer(wrapped(new TimeoutException()))).isFalse();
    }

    @Test
    void noAnswerAndLostConnectionsNeverCountAsNothingWritten() {
        assertThat(EtcdFailures.isKnownNotWritten(wrapped(new EtcdFailures.NoAnswerException("no answer"))))
                .isFalse();
        assertThat(EtcdFailures.isKnownNotWritten(wrapped(Status.UNAVAILABLE.asRuntimeException())))
                .isFalse();
        assertThat(EtcdFailures.isKnownNotWritten(
                        wrapped(EtcdExceptionFactory.newEtcdException(ErrorCode.RESOURCE_EXHAUSTED, "too many"))))
                .isTrue();
        assertThat(EtcdFailures.isKnownNotWritten(wrapped(new TxnCoalescer.NotSentException("queue full"))))
                .isTrue();
    }

    /**
     * Only the checks of our own types rely on this guard: the gRPC status checks go through
     * {@code Status.fromThrowable}, which walks the chain itself.
     */
    @Test
    void aCauseChainThatPointsAtItselfEndsTheSearch() {
        RuntimeException loop = new RuntimeException("loop") {
            private static final long serialVersionUID = 1L;

            @Override
            public synchronized Throwable getCause() {
                return this;
            }
        };
        // A give-up time for a search that would never end; the checks take microseconds.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThat(EtcdFailures.isNoAnswer(loop)).isFalse();
            assertThat(EtcdFailures.reasonOf(loop)).isEqualTo("loop");
        });
    }

    @Test
    void theReasonIsTheInnermostMessage() {
        Throwable failure = new CompletionException(new LockBackendUnavailableException(
                "outer", new IllegalStateException("etcdserver: too many requests")));
        assertThat(EtcdFailures.reasonOf(failure)).isEqualTo("etcdserver: too many requests");
    }

    @Test
    void aLockExceptionUnderFutureWrappersReachesTheCallerAsItIs() {
        LockException original = new LockException("Request id 'r' of lock 'a' is in use by another lease");
        Throwable failure = new CompletionException(new ExecutionException(original));
        assertThat(EtcdFailures.unavailable(ENDPOINTS, "acquiring lock 'a'", failure))
                .isSameAs(original);
    }

    @Test
    void anyOtherFailureBecomesUnavailableNamingTheEndpointsAndTheRequest() {
        LockException timedOut = EtcdFailures.unavailable(
                ENDPOINTS, "granting a 30s lease", new CompletionException(new TimeoutException()));
        assertThat(timedOut)
                .isInstanceOf(LockBackendUnavailableException.class)
                .hasMessage("etcd [http://127.0.0.1:2379] failed granting a 30s lease: timed out");

        IllegalStateException cause = new IllegalStateException("channel shut down");
        LockException other = EtcdFailures.unavailable(ENDPOINTS, "a health read", cause);
        assertThat(other).isInstanceOf(LockBackendUnavailableException.class).hasCause(cause);
        assertThat(other.getMessage()).contains("a health read").contains("channel shut down");
    }

    private static Throwable wrapped(Throwable cause) {
        return new CompletionException(new RuntimeException("wrapped", cause));
    }
}
