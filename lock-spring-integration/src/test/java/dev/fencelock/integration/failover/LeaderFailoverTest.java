package dev.fencelock.integration.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.ProcessControl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election across two JVMs on a real etcd, with the leader's writes fenced in PostgreSQL
 * (scripts/start-databases.sh): the leader runs in a JVM of its own, the follower in the test's.
 *
 * <ul>
 *   <li>The leader's JVM is killed with SIGKILL: the follower leads within the lease TTL plus one
 *       second, with a larger token.
 *   <li>The leader's JVM is paused with SIGSTOP past its lease: the follower takes over and writes;
 *       when the former leader wakes up, its writes are refused (by PostgreSQL itself when the writer
 *       does not know its lease is gone) and the new leader's stays.
 * </ul>
 */
class LeaderFailoverTest {

    private static final Logger logger = LoggerFactory.getLogger(LeaderFailoverTest.class);

    private static final Duration LEASE_TTL = Duration.ofSeconds(3);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final String role = "leader-" + this.suffix;

    private final DataSource database = LeaderNode.postgres();

    private final BlockingQueue<String> followerReports = new LinkedBlockingQueue<>();

    private LeaderProcess leader;

    private AnnotationConfigApplicationContext follower;

    @BeforeEach
    void createTables() throws SQLException {
        try (Connection connection = this.database.getConnection();
                Statement statement = connection.createStatement()) {
            FenceGuard.builder()
                    .table(LeaderNode.fenceTable(this.suffix))
                    .build()
                    .createTableIfMissing(connection);
            statement.execute("CREATE TABLE " + LeaderNode.counterTable(this.suffix)
                    + " (name VARCHAR(16) NOT NULL PRIMARY KEY, val BIGINT NOT NULL)");
            statement.execute("INSERT INTO " + LeaderNode.counterTable(this.suffix) + " (name, val) VALUES ('c', 0)");
        }
    }

    @AfterEach
    void stopInstancesAndDropTables() throws Exception {
        if (this.follower != null) {
            this.follower.close();
        }
        if (this.leader != null) {
            this.leader.close();
        }
        try (Connection connection = this.database.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + LeaderNode.fenceTable(this.suffix));
            statement.execute("DROP TABLE IF EXISTS " + LeaderNode.counterTable(this.suffix));
        }
    }

    @Test
    void followerLeadsAboutOneLeaseTtlAfterTheLeadersJvmIsKilled() throws Exception {
        long leaderToken = startLeaderThenFollower();

        long killedAt = System.nanoTime();
        this.leader.kill();

        long followerToken = awaitFollowerGranted(LEASE_TTL.plusSeconds(30));
        Duration leaderless = Duration.ofNanos(System.nanoTime() - killedAt);
        logger.info("Leaderless for {} after the leader's JVM was killed (lease TTL {})", leaderless, LEASE_TTL);
        // The configured 3 s lease decides, not the 30 s default: 10 s is what a loaded machine may add.
        assertThat(leaderless).isLessThanOrEqualTo(LEASE_TTL.plusSeconds(10));
        assertThat(followerToken).isGreaterThan(leaderToken);
    }

    @Test
    void pausedFormerLeadersWriteIsRefusedAfterTheTakeover() throws Exception {
        long leaderToken = startLeaderThenFollower();
        this.leader.send("write 1");
        assertThat(this.leader.awaitReport("write-result", 30)).isEqualTo("written");

        ProcessControl.pause(this.leader.pid());
        long followerToken = awaitFollowerGranted(LEASE_TTL.plusSeconds(30));
        assertThat(followerToken).isGreaterThan(leaderToken);
        assertThat(this.follower.getBean(LeaderWork.class).write(100)).isEqualTo("written");

        ProcessControl.resume(this.leader.pid());
        // First as a leader that is wrong about its lease would write: only PostgreSQL can refuse it.
        this.leader.send("write-blind 7");
        String blind = this.leader.awaitReport("write-result", 30);
        this.leader.send("write 7");
        String result = this.leader.awaitReport("write-result", 30);
        logger.info("The former leader's writes after it woke up: {} / {}", blind, result);

        assertThat(blind).startsWith("refused").contains("token " + leaderToken).contains("token " + followerToken);
        assertThat(result).startsWith("refused").contains("token " + leaderToken);
        assertThat(counter()).isEqualTo(100);
        assertThat(storedToken()).isEqualTo(followerToken);
        this.leader.awaitReport("revoked", 30);
    }

    /**
     * Starts the leader's JVM and waits for its grant, then the follower here; returns the leader's
     * token once the leader has stayed leader for one lease TTL and a second more with the follower
     * running.
     *
     * <p>A loaded machine can let the new leader's 3 s lease lapse before any fault is injected (its
     * fresh JVM's first keep-alives come late); the follower then rightly takes over, and the test
     * would not test what it means to. A lapsed lease shows within one TTL: etcd deletes the key and
     * the follower is granted, or the leader hears it lost its lease. Such a set-up is thrown away
     * and made again, at most three times.
     */
    private long startLeaderThenFollower() throws Exception {
        for (int attempt = 1; ; attempt++) {
            this.leader = LeaderProcess.launch(settings("leader"));
            long leaderToken = Long.parseLong(this.leader.awaitReport("granted", 60));
            this.follower = LeaderNode.start(settings("follower"), this.followerReports::add);
            if (leaderStaysSteady() || attempt == 3) {
                assertThat(this.followerReports)
                        .as("the follower's reports while the leader should lead (attempt %d)", attempt)
                        .isEmpty();
                return leaderToken;
            }
            logger.warn(
                    "The leader did not stay leader during set-up attempt {} (follower reported {}); starting again",
                    attempt,
                    this.followerReports);
            this.follower.close();
            this.follower = null;
            this.leader.close();
            this.leader = null;
            this.followerReports.clear();
        }
    }

    /**
     * Whether, for one lease TTL and a second more running, within 30 s, the follower stays a follower
     * without a grant and the leader does not report its leadership revoked.
     */
    private boolean leaderStaysSteady() {
        LockRegistryLeaderInitiator initiator = this.follower.getBean(LockRegistryLeaderInitiator.class);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long steadySince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (!this.followerReports.isEmpty() || this.leader.hasReport("revoked")) {
                return false;
            }
            if (initiator.getContext().isLeader()) {
                steadySince = System.nanoTime();
            } else if (System.nanoTime() - steadySince
                    >= LEASE_TTL.plusSeconds(1).toNanos()) {
                return true;
            }
            sleepQuietly(50);
        }
        return false;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a steady leader", ex);
        }
    }

    private long awaitFollowerGranted(Duration timeout) throws InterruptedException {
        String report = this.followerReports.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(report).as("the follower's grant").isNotNull().startsWith("granted ");
        return Long.parseLong(report.substring("granted ".length()));
    }

    private LeaderNode.Settings settings(String id) {
        return new LeaderNode.Settings(id, etcd.endpoints().get(0), this.role, LEASE_TTL, this.suffix);
    }

    private long counter() throws SQLException {
        return queryLong("SELECT val FROM " + LeaderNode.counterTable(this.suffix) + " WHERE name = 'c'");
    }

    private long storedToken() throws SQLException {
        return queryLong("SELECT token FROM " + LeaderNode.fenceTable(this.suffix));
    }

    private long queryLong(String sql) throws SQLException {
        try (Connection connection = this.database.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }
}
