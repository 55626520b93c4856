package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class MemberStatusTest {

    @Test
    void readsTheGatewaysStatusAnswer() throws IOException {
        MemberStatus status = MemberStatus.parse("{\"header\":{\"cluster_id\":\"10209395086029371855\","
                + "\"member_id\":\"13510015062231200447\",\"revision\":\"1\",\"raft_term\":\"2\"},"
                + "\"version\":\"3.4.23\",\"leader\":\"13510015062231200447\",\"raftTerm\":\"2\"}");

        assertThat(status.memberId()).isEqualTo("13510015062231200447");
        assertThat(status.raftTerm()).isEqualTo(2);
        assertThat(status.isLeader()).isTrue();
    }

    @Test
    void aMemberWithoutLeaderHasTheZeroLeaderTheGatewayLeavesOut() throws IOException {
        MemberStatus status = MemberStatus.parse("{\"header\":{\"member_id\":\"42\",\"raft_term\":\"5\"}}");

        assertThat(status.leaderId()).isEqualTo(MemberStatus.NO_LEADER);
        assertThat(status.isLeader()).isFalse();
    }

    @Test
    void anAnswerWithoutMemberIdIsAnError() {
        assertThatThrownBy(() -> MemberStatus.parse("{\"error\":\"etcdserver: request timed out\"}"))
                .isInstanceOf(IOException.class);
    }
}
