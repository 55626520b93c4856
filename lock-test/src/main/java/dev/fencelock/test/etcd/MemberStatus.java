package dev.fencelock.test.etcd;

import java.io.IOException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of etcd's {@code /v3/maintenance/status} answer the launcher needs to tell who leads.
 *
 * <p>Read with patterns instead of a JSON library so the kit adds no dependency; the gateway prints uint64 values
 * as decimal strings and leaves zero values out, which is why a missing leader reads as {@code "0"}.
 *
 * @param memberId the answering member's raft id
 * @param leaderId the raft id of the leader this member follows, {@code "0"} if it knows none
 * @param raftTerm the raft term the member is in
 */
record MemberStatus(String memberId, String leaderId, long raftTerm) {

    static final String NO_LEADER = "0";

    private static final Pattern MEMBER_ID = field("member_id");
    private static final Pattern LEADER = field("leader");
    private static final Pattern RAFT_TERM = field("raft_term");

    boolean isLeader() {
        return memberId.equals(leaderId);
    }

    static MemberStatus parse(String json) throws IOException {
        String memberId = find(MEMBER_ID, json)
                .orElseThrow(() -> new IOException("no header.member_id in status answer: " + json));
        String leaderId = find(LEADER, json).orElse(NO_LEADER);
        long raftTerm = Long.parseLong(find(RAFT_TERM, json).orElse("0"));
        return new MemberStatus(memberId, leaderId, raftTerm);
    }

    private static Pattern field(String name) {
        return Pattern.compile("\"" + name + "\"\\s*:\\s*\"?(\\d+)\"?");
    }

    private static Optional<String> find(Pattern pattern, String json) {
        Matcher matcher = pattern.matcher(json);
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }
}
