package dev.fencelock.test.zookeeper;

import dev.fencelock.test.etcd.TestCertificates;
import dev.fencelock.test.fault.ExitCleanup;
import dev.fencelock.test.fault.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Throw-away ZooKeeper servers of Debian's {@code zookeeper} package on 127.0.0.1: one standalone
 * server or an ensemble of three, each a JVM of its own, stopped by its PID.
 *
 * <p>Ticks are 500 ms, so sessions may last from 1 s ({@code 2 × tickTime}) to the
 * {@code maxSessionTimeout} of ten minutes. Ports are drawn below 32768, outside Linux's ephemeral
 * range; when one is taken anyway a server does not come up, and the whole ensemble is started
 * again on other ports. The four-letter commands {@code srvr}, {@code mntr} and {@code ruok} are
 * allowed, which {@link Member#mode()} uses.
 *
 * <p>A JVM shutdown hook kills the members that are still running when the JVM exits without closing the ensemble,
 * and {@link ZooKeeperEnsembleExtension} gives a JUnit test class one ensemble.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {

    /** Debian's server jar; its manifest names the rest of its class path. */
    public static final Path JAR = Path.of("/usr/share/java/zookeeper.jar");

    /**
     * Netty's codec, which the Netty connection factory of TLS members needs and the server jar's
     * manifest does not name (Debian's {@code libnetty-java}).
     */
    private static final Path NETTY_CODEC = Path.of("/usr/share/java/netty-codec.jar");

    private static final int ATTEMPTS = 5;

    /** Each member's maximum heap unless one is asked for. */
    public static final String DEFAULT_HEAP = "128m";

    private final List<Member> members;

    private final Path directory;

    private ZooKeeperEnsemble(List<Member> members, Path directory) {
        this.members = members;
        this.directory = directory;
    }

    /** A single server in standalone mode. */
    public static ZooKeeperEnsemble standalone() {
        return start(1);
    }

    /** Starts {@code size} servers (1 or 3) and waits until they serve: standalone or with a leader. */
    public static ZooKeeperEnsemble start(int size) {
        return start(size, "");
    }

    /**
     * Like {@link #start(int)}, with {@code extraConfig} (lines such as {@code
     * maxSessionTimeout=5000}) added to every member's configuration, where they override the kit's.
     */
    public static ZooKeeperEnsemble start(int size, String extraConfig) {
        return start(size, extraConfig, DEFAULT_HEAP);
    }

    /**
     * Like {@link #start(int, String)}, each member with a maximum heap of {@code maxHeap} (as for
     * {@code -Xmx}, e.g. {@code 512m}) instead of {@value #DEFAULT_HEAP}: a load of a hundred
     * thousand nodes and more does not fit the default.
     */
    public static ZooKeeperEnsemble start(int size, String extraConfig, String maxHeap) {
        if (!maxHeap.matches("[0-9]+[kmgKMG]")) {
            throw new IllegalArgumentException("A heap size such as 512m, not " + maxHeap);
        }
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("An ensemble of 1 or 3 servers, not " + size);
        }
        if (!Files.isReadable(JAR)) {
            throw new IllegalStateException(
                    "No " + JAR + "; install Debian's zookeeper package (apt-get install -y zookeeper)");
        }
        return startWithRetries(size, extraConfig, maxHeap, null);
    }

    /**
     * Like {@link #start(int)}, each member also serving TLS on a {@code secureClientPort} of its own
     * ({@link #secureConnectString()}), with the server certificate of {@code certificates} and
     * requiring a client certificate issued by its authority (ZooKeeper's default {@code
     * ssl.clientAuth=need}). The plain-text client ports stay, for the kit's four-letter commands. The
     * members use the Netty connection factory, the only one that serves TLS; key and trust stores are
     * PEM files written into the ensemble's directory.
     */
    public static ZooKeeperEnsemble startTls(int size, TestCertificates certificates) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("An ensemble of 1 or 3 servers, not " + size);
        }
        return startWithRetries(size, "", DEFAULT_HEAP, certificates);
    }

    private static ZooKeeperEnsemble startWithRetries(
            int size, String extraConfig, String maxHeap, @Nullable TestCertificates tls) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                return startOnce(size, extraConfig, maxHeap, tls);
            } catch (IllegalStateException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("ZooKeeper did not start in " + ATTEMPTS + " attempts", last);
    }

    private static ZooKeeperEnsemble startOnce(
            int size, String extraConfig, String maxHeap, @Nullable TestCertificates tls) {
        Path directory;
        try {
            directory = Files.createTempDirectory("fencelock-zookeeper-");
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not create a directory for ZooKeeper", ex);
        }
        ExitCleanup.track(directory);
        // Three ports per member (client, two peer), then one secure client port per member.
        int base = ThreadLocalRandom.current().nextInt(20_000, 32_000 - 4 * size);
        List<Member> members = new ArrayList<>();
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(members, directory);
        try {
            StringBuilder servers = new StringBuilder();
            for (int id = 1; size > 1 && id <= size; id++) {
                int peer = base + 3 * (id - 1) + 1;
                servers.append("server.")
                        .append(id)
                        .append("=127.0.0.1:")
                        .append(peer)
                        .append(':')
                        .append(peer + 1)
                        .append('\n');
            }
            String tlsConfig = (tls != null) ? tlsConfig(directory, tls) : "";
            for (int id = 1; id <= size; id++) {
                members.add(new Member(
                        id,
                        base + 3 * (id - 1),
                        directory.resolve("member-" + id),
                        servers + tlsConfig + extraConfig + "\n",
                        maxHeap));
                if (tls != null) {
                    members.get(id - 1).secureClientPort = base + 3 * size + (id - 1);
                }
            }
            members.forEach(Member::start);
            // Two minutes: an election on a loaded machine; a member that exits ends the wait at once.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!members.stream().allMatch(Member::serves)) {
                for (Member member : members) {
                    if (!member.isAlive()) {
                        throw new IllegalStateException("ZooKeeper member " + member.id + " exited: " + member.log());
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("ZooKeeper did not serve within 120 s: "
                            + members.stream().map(Member::log).collect(Collectors.joining("\n---\n")));
                }
                sleep(50);
            }
            return ensemble;
        } catch (RuntimeException ex) {
            ensemble.close();
            throw (ex instanceof IllegalStateException illegal) ? illegal : new IllegalStateException(ex);
        }
    }

    /** The Netty factory and PEM stores of TLS members: key and certificate in one file, as ZooKeeper reads PEM. */
    private static String tlsConfig(Path directory, TestCertificates certificates) {
        try {
            Path tls = Files.createDirectories(directory.resolve("tls"));
            Path keyStore = tls.resolve("server.pem");
            Files.writeString(
                    keyStore,
                    Files.readString(certificates.serverKey()) + Files.readString(certificates.serverCertificate()));
            Path trustStore = Files.copy(certificates.caCertificate(), tls.resolve("ca.pem"));
            return "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
                    + "ssl.keyStore.location=" + keyStore + "\nssl.keyStore.type=PEM\n"
                    + "ssl.trustStore.location=" + trustStore + "\nssl.trustStore.type=PEM\n";
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not write the TLS stores of ZooKeeper into " + directory, ex);
        }
    }

    /**
     * {@code 127.0.0.1:s1,127.0.0.1:s2,…}: every member's TLS client address, for an ensemble of
     * {@link #startTls}.
     */
    public String secureConnectString() {
        if (this.members.stream().anyMatch(member -> member.secureClientPort == 0)) {
            throw new IllegalStateException("This ensemble serves no TLS; start it with ZooKeeperEnsemble.startTls");
        }
        return this.members.stream().map(m -> "127.0.0.1:" + m.secureClientPort).collect(Collectors.joining(","));
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,…}: every member's client address. */
    public String connectString() {
        return this.members.stream().map(m -> "127.0.0.1:" + m.clientPort).collect(Collectors.joining(","));
    }

    public List<Member> members() {
        return List.copyOf(this.members);
    }

    /** The member that leads (or the only one), waiting up to two minutes for an election. */
    public Member leader() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() - deadline < 0) {
            for (Member member : this.members) {
                String mode = member.mode();
                if ("leader".equals(mode) || "standalone".equals(mode)) {
                    return member;
                }
            }
            sleep(50);
        }
        throw new IllegalStateException("No ZooKeeper member leads after 120 s");
    }

    /** Stops every member by PID and deletes their data. */
    @Override
    public void close() {
        for (Member member : this.members) {
            member.stop();
        }
        deleteRecursively(this.directory);
        ExitCleanup.untrack(this.directory);
    }

    /** One server: its own JVM, configuration and data directory. */
    public static final class Member {

        private final int id;

        private final int clientPort;

        private final Path directory;

        private final String servers;

        private @Nullable Process process;

        private final String maxHeap;

        /** The TLS client port, or 0 when the member serves no TLS. */
        private int secureClientPort;

        Member(int id, int clientPort, Path directory, String servers, String maxHeap) {
            this.maxHeap = maxHeap;
            this.id = id;
            this.clientPort = clientPort;
            this.directory = directory;
            this.servers = servers;
        }

        public int id() {
            return this.id;
        }

        /** {@code 127.0.0.1:<port>}. */
        public String address() {
            return "127.0.0.1:" + this.clientPort;
        }

        public int clientPort() {
            return this.clientPort;
        }

        /** The TLS client port of a member of {@link ZooKeeperEnsemble#startTls}, else 0. */
        public int secureClientPort() {
            return this.secureClientPort;
        }

        public long pid() {
            Process current = this.process;
            if (current == null) {
                throw new IllegalStateException("ZooKeeper member " + this.id + " is not running");
            }
            return current.pid();
        }

        void start() {
            try {
                Path data = Files.createDirectories(this.directory.resolve("data"));
                Files.writeString(data.resolve("myid"), Integer.toString(this.id));
                Path config = this.directory.resolve("zoo.cfg");
                Files.writeString(
                        config,
                        "tickTime=500\ninitLimit=20\nsyncLimit=10\nmaxSessionTimeout=600000\n"
                                + "dataDir=" + data + "\nclientPort=" + this.clientPort
                                + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                                + "4lw.commands.whitelist=srvr,mntr,ruok\nstandaloneEnabled=true\n"
                                + ((this.secureClientPort != 0)
                                        ? "secureClientPort=" + this.secureClientPort
                                                + "\nsecureClientPortAddress=127.0.0.1\n"
                                        : "")
                                + this.servers);
                this.process = new ProcessBuilder(
                                "java",
                                "-Xmx" + this.maxHeap,
                                "-XX:+UseSerialGC",
                                "-cp",
                                (this.secureClientPort != 0) ? JAR + ":" + NETTY_CODEC : JAR.toString(),
                                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                                config.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(this.directory.resolve("zookeeper.log").toFile())
                        .start();
                ExitCleanup.track(this.process);
            } catch (IOException ex) {
                throw new UncheckedIOException("Could not start ZooKeeper member " + this.id, ex);
            }
        }

        /** Starts a stopped or killed member again on its ports, with its data. */
        public void restart() {
            stop();
            start();
        }

        boolean isAlive() {
            Process current = this.process;
            return current != null && current.isAlive();
        }

        boolean serves() {
            String mode = mode();
            return mode != null && !mode.isEmpty();
        }

        /** {@code leader}, {@code follower}, {@code standalone}, or {@code null} while it does not serve. */
        public @Nullable String mode() {
            String status = fourLetters("srvr");
            if (status == null) {
                return null;
            }
            for (String line : status.split("\n")) {
                if (line.startsWith("Mode: ")) {
                    return line.substring(6).strip();
                }
            }
            return null;
        }

        /** A four-letter command's answer, or {@code null} when the member does not answer it. */
        public @Nullable String fourLetters(String command) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.clientPort), 1_000);
                socket.setSoTimeout(2_000);
                socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                return answer.contains("not currently serving") ? null : answer;
            } catch (IOException ex) {
                return null;
            }
        }

        /** Freezes the member with {@code SIGSTOP}: it keeps its sockets but answers nothing. */
        public void pause() {
            ProcessControl.pause(pid());
        }

        public void resume() {
            ProcessControl.resume(pid());
        }

        /** Ends the member at once with {@code SIGKILL}, as a crash would. */
        public void kill() {
            Process current = this.process;
            if (current != null && current.isAlive()) {
                ProcessControl.kill(current.pid());
                waitFor(current);
            }
            if (current != null) {
                ExitCleanup.untrack(current);
            }
        }

        void stop() {
            kill();
            this.process = null;
        }

        String log() {
            try {
                List<String> lines = Files.readAllLines(this.directory.resolve("zookeeper.log"));
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
            } catch (IOException ex) {
                return "(no log: " + ex.getMessage() + ")";
            }
        }

        private static void waitFor(Process process) {
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "ZooKeeper member " + this.id + " on " + address();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for ZooKeeper", ex);
        }
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // A temporary directory; what remains is left to the system.
        }
    }
}
