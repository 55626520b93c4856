package dev.fencelock.test.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A lost answer is armed for its client's next command: a step of that client that acts on another client's lease
 * must neither use it up nor leave the acting client's own armed.
 */
class ModelRunLostAnswersTest {

    private final List<String> calls = new ArrayList<>();

    @Test
    void aStepThatActsOnAnotherClientsLeaseLeavesItsOwnClientArmed() {
        List<Step> script = List.of(
                new Step(Step.Kind.ACQUIRE, 0, 0, 0, 0),
                new Step(Step.Kind.DROP_TXN_RESPONSE, 1, 0, 0, 0),
                // Client 1 holds nothing: the release acts on client 0's lease, and client 0 sends it.
                new Step(Step.Kind.RELEASE, 1, 0, 0, 0));

        ModelRun.run(new RecordingSystem(), script, new RunStats());

        // Client 1 has sent nothing since the drop: its next command's answer is still to be lost.
        assertThat(this.calls).containsExactly("c1 lose");
    }

    @Test
    void theClientThatSentTheCommandIsDisarmed() {
        List<Step> script = List.of(
                new Step(Step.Kind.ACQUIRE, 0, 0, 0, 0),
                new Step(Step.Kind.DROP_TXN_RESPONSE, 0, 0, 0, 0),
                // Client 1 holds nothing: the release acts on client 0's lease, and client 0 sends it.
                new Step(Step.Kind.RELEASE, 1, 0, 0, 0));

        ModelRun.run(new RecordingSystem(), script, new RunStats());

        // Client 0's release was its next command: only its answer was to be lost.
        assertThat(this.calls).containsExactly("c0 lose", "c0 disarm");
    }

    /** The in-memory store, with lost answers recorded instead of refused. */
    private final class RecordingSystem implements LockSystem {

        private final InMemoryLockSystem store = new InMemoryLockSystem();

        @Override
        public String describe() {
            return this.store.describe();
        }

        @Override
        public int members() {
            return this.store.members();
        }

        @Override
        public Duration leaseTtl() {
            return this.store.leaseTtl();
        }

        @Override
        public Duration sessionValidity() {
            return this.store.sessionValidity();
        }

        @Override
        public Duration settleTimeout() {
            return this.store.settleTimeout();
        }

        @Override
        public Run start(String runId) {
            Run run = this.store.start(runId);
            return new Run() {
                @Override
                public List<LockClient> clients() {
                    return run.clients();
                }

                @Override
                public StoreView store() {
                    return run.store();
                }

                @Override
                public void keepAlives(int client, boolean flowing) {
                    run.keepAlives(client, flowing);
                }

                @Override
                public void loseWriteAnswers(int client, boolean lose) {
                    calls.add("c" + client + (lose ? " lose" : " disarm"));
                }

                @Override
                public void pauseLeader(Duration pause) {
                    run.pauseLeader(pause);
                }

                @Override
                public void restartMember(int member) {
                    run.restartMember(member);
                }

                @Override
                public Map<Long, Long> sessionDeadlines(int client) {
                    return run.sessionDeadlines(client);
                }

                @Override
                public void closeClients() {
                    run.closeClients();
                }

                @Override
                public void close() {
                    run.close();
                }
            };
        }
    }
}
