package dev.fencelock.test.etcd;

import dev.fencelock.test.fault.ExitCleanup;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A real etcd cluster of one or more local processes, started from the etcd binary for tests.
 *
 * <p>Lock behaviour under leader loss, paused members and lost quorum can only be trusted when it has been seen
 * against etcd itself, not a fake; this class makes such a cluster cheap enough to start per test class. Every
 * member listens on 127.0.0.1 only, on ports that were free when the cluster started (or the ones pinned with
 * {@link Builder#clientPorts} and {@link Builder#peerPorts}), with its own temporary data directory.
 *
 * <pre>{@code
 * try (EtcdCluster etcd = EtcdCluster.builder().members(3).build().start()) {
 *     etcd.leader().kill();
 *     EtcdMember next = etcd.awaitLeader(Duration.ofSeconds(10));
 * }
 * }</pre>
 */
public final class EtcdCluster implements AutoCloseable {

    /** System property naming the etcd binary; wins over the environment variable. */
    public static final String BINARY_PROPERTY = "fencelock.etcd.binary";

    /** Environment variable naming the etcd binary. */
    public static final String BINARY_ENVIRONMENT_VARIABLE = "FENCELOCK_ETCD_BINARY";

    /** Where Debian's {@code etcd-server} package installs etcd. */
    public static final Path DEFAULT_BINARY = Paths.get("/usr/bin/etcd");

    /** Long enough for a loaded machine's answer; a member that cannot answer costs a poll this long. */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(2);

    private static final long POLL_MILLIS = 100;

    private enum State {
        NEW,
        RUNNING,
        CLOSED
    }

    private final Builder settings;
    private final Path binary;
    private final List<EtcdMember> members = new ArrayList<>();
    private final String clusterToken = "fencelock-" + UUID.randomUUID();
    private @Nullable PeerNetwork network;
    private State state = State.NEW;

    private EtcdCluster(Builder settings, Path binary) {
        this.settings = settings.copy();
        this.binary = binary;
    }

    /** Starts describing a cluster; defaults are one member, 100 ms heartbeat and 1000 ms election timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts a cluster of {@code members} members with default settings and waits until all are healthy. */
    public static EtcdCluster start(int members) {
        return builder().members(members).build().start();
    }

    /**
     * Launches every member and waits until each reports healthy. If that fails, everything started so far is
     * stopped and deleted before the exception leaves.
     *
     * @throws IllegalStateException if the cluster was already started or a member does not become healthy in
     *     time; the message carries the end of that member's log
     */
    public synchronized EtcdCluster start() {
        if (state != State.NEW) {
            throw new IllegalStateException("an EtcdCluster can be started once; this one is " + state);
        }
        state = State.RUNNING;
        try {
            createMembers();
            members.forEach(EtcdMember::launch);
            long deadline = System.nanoTime() + settings.startTimeout.toNanos();
            for (EtcdMember member : members) {
                member.awaitHealthy(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
            return this;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The number of members, running or not. */
    public int size() {
        return settings.members;
    }

    /** Every member's client URL, {@code http://127.0.0.1:<port>}, in member order. */
    public List<String> endpoints() {
        return members().stream().map(EtcdMember::clientEndpoint).collect(Collectors.toUnmodifiableList());
    }

    /** The client URLs separated by commas, as jetcd's and etcdctl's endpoint options take them. */
    public String endpointsCsv() {
        return String.join(",", endpoints());
    }

    /**
     * The member at {@code index}, counted from 0: {@code member(0)} is {@code m1}.
     *
     * @throws IndexOutOfBoundsException if there is no such member
     */
    public EtcdMember member(int index) {
        return members().get(index);
    }

    /** All members in order, whatever their state. */
    public synchronized List<EtcdMember> members() {
        requireStarted();
        return List.copyOf(members);
    }

    /**
     * The links between the members, to partition them.
     *
     * @throws IllegalStateException if the cluster was not built with {@link Builder#peerNetwork()}
     */
    public synchronized PeerNetwork peerNetwork() {
        requireStarted();
        if (network == null) {
            throw new IllegalStateException("this cluster was built without Builder.peerNetwork()");
        }
        return network;
    }

    /**
     * The current leader, as agreed by a quorum of the members that answer right now.
     *
     * @throws IllegalStateException if no member is recognised as leader by a quorum, for example during an
     *     election
     */
    public EtcdMember leader() {
        return findLeader()
                .orElseThrow(() -> new IllegalStateException("no leader recognised by a quorum; " + describe()));
    }

    /**
     * The current leader, if one is recognised by a quorum: a member that calls itself leader and whom at least
     * {@code size() / 2 + 1} answering members name as leader. Asking for quorum agreement keeps a deposed leader
     * that has not yet noticed it lost its term from being reported.
     */
    public Optional<EtcdMember> findLeader() {
        Map<EtcdMember, MemberStatus> statuses = statusOfAnsweringMembers(members());
        return statuses.entrySet().stream()
                .filter(entry -> entry.getValue().isLeader())
                .max(Comparator.comparingLong(entry -> entry.getValue().raftTerm()))
                .filter(candidate -> followersOf(candidate.getValue().memberId(), statuses) >= quorum())
                .map(Map.Entry::getKey);
    }

    /**
     * Waits until a leader is recognised by a quorum.
     *
     * @throws IllegalStateException if none is within {@code timeout}; the message lists every member's state
     */
    public EtcdMember awaitLeader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<EtcdMember> leader = findLeader();
            if (leader.isPresent()) {
                return leader.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no leader within " + timeout + "; " + describe());
            }
            pauseBriefly();
        }
    }

    /** The running members other than the current {@link #leader()}, in member order. */
    public List<EtcdMember> followers() {
        EtcdMember leader = leader();
        return members().stream()
                .filter(member -> member != leader && member.isRunning())
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * Creates the {@code root} user and {@code users}, each with a role of its own name that may read and write its
     * prefixes, and turns authentication on; from then on etcd refuses requests without a valid token. Users cannot
     * be added afterwards through this method, so pass them all at once.
     *
     * @throws java.io.UncheckedIOException if etcd refuses a step (authentication already on, a user exists)
     */
    public void enableAuth(String rootPassword, EtcdUser... users) {
        new EtcdAuthSetup(member(0)).enable(rootPassword, List.of(users));
    }

    /**
     * Stops every member by PID and deletes the data directories. Calling it again does nothing.
     *
     * <p>Paused members are resumed first, since a stopped process does not act on {@code SIGTERM}. Followers are
     * stopped before the leader: a leader that receives {@code SIGTERM} tries to hand leadership to a connected
     * follower, and if that follower is shutting down too, etcd 3.4 waits 7 s for the transfer to time out. With
     * the followers already gone it skips the transfer and exits at once.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        List<RuntimeException> failures = new ArrayList<>();
        members.forEach(member -> collectFailure(failures, member::resume));
        Map<EtcdMember, MemberStatus> statuses = statusOfAnsweringMembers(members);
        List<EtcdMember> leaders = new ArrayList<>();
        List<EtcdMember> others = new ArrayList<>();
        for (EtcdMember member : members) {
            MemberStatus status = statuses.get(member);
            if (status != null && status.isLeader()) {
                leaders.add(member);
            } else {
                others.add(member);
            }
        }
        stopTogether(others, failures);
        stopTogether(leaders, failures);
        PeerNetwork links = network;
        if (links != null) {
            collectFailure(failures, links::close);
        }
        for (EtcdMember member : members) {
            collectFailure(failures, () -> deleteDirectory(member.directory()));
        }
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("closing the etcd cluster failed");
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "EtcdCluster" + (members.isEmpty() ? "[" + state + "]" : members.toString());
    }

    private void createMembers() {
        MemberLayout layout = new MemberLayout(settings, binary, clusterToken);
        members.addAll(layout.create());
        network = layout.network();
    }

    private static void deleteDirectory(Path directory) {
        ExitCleanup.deleteRecursively(directory);
        ExitCleanup.untrack(directory);
    }

    private static Map<EtcdMember, MemberStatus> statusOfAnsweringMembers(List<EtcdMember> candidates) {
        Map<EtcdMember, CompletableFuture<MemberStatus>> pending = new LinkedHashMap<>();
        for (EtcdMember member : candidates) {
            if (member.isRunning() && !member.isPaused()) {
                pending.put(member, member.status(STATUS_TIMEOUT));
            }
        }
        Map<EtcdMember, MemberStatus> answers = new LinkedHashMap<>();
        pending.forEach((member, status) -> {
            try {
                answers.put(member, status.join());
            } catch (CompletionException e) {
                // A member that cannot answer right now simply does not vote.
            }
        });
        return answers;
    }

    /** Signals all before awaiting any, so they share one grace period instead of taking one each. */
    private static void stopTogether(List<EtcdMember> group, List<RuntimeException> failures) {
        group.forEach(member -> collectFailure(failures, member::beginStop));
        group.forEach(member -> collectFailure(failures, member::stop));
    }

    private static long followersOf(String leaderId, Map<EtcdMember, MemberStatus> statuses) {
        return statuses.values().stream()
                .filter(status -> status.leaderId().equals(leaderId))
                .count();
    }

    private int quorum() {
        return settings.members / 2 + 1;
    }

    private String describe() {
        return members().stream().map(EtcdMember::toString).collect(Collectors.joining(", ", "members: ", ""));
    }

    private synchronized void requireStarted() {
        if (state == State.NEW) {
            throw new IllegalStateException("the etcd cluster has not been started");
        }
    }

    private static void collectFailure(List<RuntimeException> failures, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private static void pauseBriefly() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an etcd leader", e);
        }
    }

    /** Describes a cluster before it is started; a builder can build any number of independent clusters. */
    public static final class Builder {

        int members = 1;

        @Nullable
        Path binary;

        Duration heartbeatInterval = Duration.ofMillis(100);
        Duration electionTimeout = Duration.ofMillis(1000);
        Duration startTimeout = Duration.ofSeconds(60);
        int[] clientPorts = new int[0];
        int[] peerPorts = new int[0];
        final List<String> extraArguments = new ArrayList<>();
        boolean peerNetwork;

        @Nullable
        TestCertificates tls;

        boolean clientCertAuth;

        @Nullable
        Duration authTokenTtl;

        private Builder() {}

        /** The number of members; odd, because an even count adds no fault tolerance to raft. */
        public Builder members(int members) {
            if (members < 1 || members % 2 == 0) {
                throw new IllegalArgumentException("an etcd cluster needs an odd number of members, not " + members);
            }
            this.members = members;
            return this;
        }

        /** The etcd binary to run instead of the one found through the property, variable or default path. */
        public Builder binary(Path binary) {
            this.binary = binary;
            return this;
        }

        /** etcd's {@code --heartbeat-interval}; shorter makes failover faster and costs CPU. */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = positive("heartbeat interval", heartbeatInterval);
            return this;
        }

        /** etcd's {@code --election-timeout}: how long followers wait for a heartbeat before electing anew. */
        public Builder electionTimeout(Duration electionTimeout) {
            this.electionTimeout = positive("election timeout", electionTimeout);
            return this;
        }

        /**
         * How long {@link EtcdCluster#start()} and {@link EtcdMember#restart()} wait for health; 60 s by default,
         * a give-up time that a loaded machine starting members with TLS stays inside.
         */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = positive("start timeout", startTimeout);
            return this;
        }

        /** Pins the members' client ports, one per member in member order; free ports are used when not set. */
        public Builder clientPorts(int... ports) {
            this.clientPorts = ports.clone();
            return this;
        }

        /** Pins the members' peer (raft) ports, one per member in member order; free ports when not set. */
        public Builder peerPorts(int... ports) {
            this.peerPorts = ports.clone();
            return this;
        }

        /** Routes traffic between members through proxies, so that {@link EtcdCluster#peerNetwork()} can cut it. */
        public Builder peerNetwork() {
            this.peerNetwork = true;
            return this;
        }

        /**
         * Serves the client URLs over TLS ({@code https://}) with a server certificate of {@code certificates}; the
         * members copy it, so {@link EtcdMember#serverCertificateFile()} can be replaced for one member alone.
         */
        public Builder tls(TestCertificates certificates) {
            this.tls = certificates;
            return this;
        }

        /**
         * Serves TLS like {@link #tls} and also requires a client certificate issued by {@code certificates}'
         * authority ({@code --client-cert-auth}).
         */
        public Builder mutualTls(TestCertificates certificates) {
            this.tls = certificates;
            this.clientCertAuth = true;
            return this;
        }

        /**
         * etcd's {@code --auth-token-ttl}: how long an authentication token lives without being used, in whole
         * seconds (etcd's default is 300 s). Short values let tests run past a token's expiry.
         */
        public Builder authTokenTtl(Duration ttl) {
            if (ttl.toSeconds() < 1) {
                throw new IllegalArgumentException("etcd's auth token TTL is whole seconds, at least 1 s, got " + ttl);
            }
            this.authTokenTtl = ttl;
            return this;
        }

        /** Further etcd flags for every member, for example {@code --auto-compaction-retention=1}. */
        public Builder extraArgument(String argument) {
            extraArguments.add(argument);
            return this;
        }

        /**
         * Checks the settings and finds the binary, so a missing etcd fails here with install instructions.
         *
         * @throws IllegalStateException if no etcd binary is found
         * @throws IllegalArgumentException if the election timeout is under five heartbeats, which etcd refuses, or
         *     pinned ports do not match the number of members
         */
        public EtcdCluster build() {
            requireOnePerMember(clientPorts, "client");
            requireOnePerMember(peerPorts, "peer");
            if (electionTimeout.toMillis() < 5 * heartbeatInterval.toMillis()) {
                throw new IllegalArgumentException("etcd needs an election timeout of at least 5 heartbeats, got "
                        + electionTimeout.toMillis() + " ms for a " + heartbeatInterval.toMillis() + " ms heartbeat");
            }
            return new EtcdCluster(this, EtcdBinary.resolve(binary));
        }

        private Builder copy() {
            Builder copy = new Builder();
            copy.members = members;
            copy.binary = binary;
            copy.heartbeatInterval = heartbeatInterval;
            copy.electionTimeout = electionTimeout;
            copy.startTimeout = startTimeout;
            copy.clientPorts = clientPorts.clone();
            copy.peerPorts = peerPorts.clone();
            copy.extraArguments.addAll(extraArguments);
            copy.peerNetwork = peerNetwork;
            copy.tls = tls;
            copy.clientCertAuth = clientCertAuth;
            copy.authTokenTtl = authTokenTtl;
            return copy;
        }

        private void requireOnePerMember(int[] ports, String use) {
            if (ports.length > 0 && ports.length != members) {
                throw new IllegalArgumentException(members + " members need " + members + " " + use + " ports, got "
                        + ports.length + " " + use + " port" + (ports.length == 1 ? "" : "s"));
            }
        }

        private static Duration positive(String what, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + value);
            }
            return value;
        }
    }
}
