package dev.fencelock.test.etcd;

import dev.fencelock.test.fault.ExitCleanup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The members of a new cluster: names, ports (pinned or free), the peer network if asked for, data
 * directories and the etcd command line of each.
 */
final class MemberLayout {

    private final EtcdCluster.Builder settings;
    private final Path binary;
    private final String clusterToken;
    private @Nullable PeerNetwork network;

    MemberLayout(EtcdCluster.Builder settings, Path binary, String clusterToken) {
        this.settings = settings;
        this.binary = binary;
        this.clusterToken = clusterToken;
    }

    /** The peer network {@link #create()} set up, or {@code null} when the cluster has none. */
    @Nullable
    PeerNetwork network() {
        return network;
    }

    List<EtcdMember> create() {
        List<EtcdMember> members = new ArrayList<>();
        int count = settings.members;
        int[] ports = LoopbackPorts.assign(count, settings.clientPorts, settings.peerPorts);
        int[] peerPorts = IntStream.range(0, count).map(i -> ports[2 * i + 1]).toArray();
        PeerNetwork links = settings.peerNetwork ? PeerNetwork.start(peerPorts) : null;
        network = links;
        int[] advertisedPeerPorts = links == null ? peerPorts : links.advertisedPorts();
        List<String> names = new ArrayList<>();
        StringBuilder initialCluster = new StringBuilder();
        for (int i = 0; i < count; i++) {
            names.add("m" + (i + 1));
            initialCluster
                    .append(i == 0 ? "" : ",")
                    .append(names.get(i))
                    .append("=http://127.0.0.1:")
                    .append(advertisedPeerPorts[i]);
        }
        MemberTls tls = (settings.tls != null) ? new MemberTls(settings.tls, settings.clientCertAuth) : null;
        for (int i = 0; i < count; i++) {
            Path directory = createDirectory(names.get(i));
            List<String> command = command(
                    names.get(i), ports[2 * i], ports[2 * i + 1], advertisedPeerPorts[i], directory, initialCluster);
            if (tls != null) {
                command.addAll(tls.arguments(directory));
            }
            members.add(new EtcdMember(
                    names.get(i), ports[2 * i], ports[2 * i + 1], directory, command, settings.startTimeout, tls));
        }
        if (links != null) {
            links.attach(members);
        }
        return members;
    }

    private List<String> command(
            String name, int clientPort, int peerPort, int advertisedPort, Path directory, CharSequence cluster) {
        String clientUrl = (settings.tls != null ? "https" : "http") + "://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--name=" + name,
                "--data-dir=" + directory.resolve("data"),
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                // The peer network's proxy when there is one, so that other members reach this one through it.
                "--initial-advertise-peer-urls=http://127.0.0.1:" + advertisedPort,
                "--initial-cluster=" + cluster,
                // Ignored by etcd once the data directory exists, so restart() can reuse this command line as is.
                "--initial-cluster-state=new",
                "--initial-cluster-token=" + clusterToken,
                "--heartbeat-interval=" + settings.heartbeatInterval.toMillis(),
                "--election-timeout=" + settings.electionTimeout.toMillis(),
                "--logger=zap",
                "--log-outputs=stderr"));
        if (settings.authTokenTtl != null) {
            command.add("--auth-token-ttl=" + settings.authTokenTtl.toSeconds());
        }
        command.addAll(settings.extraArguments);
        return command;
    }

    private static Path createDirectory(String memberName) {
        try {
            Path directory = Files.createTempDirectory("fencelock-etcd-" + memberName + "-");
            ExitCleanup.track(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a data directory for etcd member " + memberName, e);
        }
    }
}
