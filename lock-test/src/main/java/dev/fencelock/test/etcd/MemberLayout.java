package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The members of a new cluster: names, ports, data directories and the etcd command line of each. */
final class MemberLayout {

    private final EtcdCluster.Builder settings;
    private final Path binary;

    MemberLayout(EtcdCluster.Builder settings, Path binary) {
        this.settings = settings;
        this.binary = binary;
    }

    List<EtcdMember> create() {
        List<EtcdMember> members = new ArrayList<>();
        int count = settings.members;
        int[] ports = LoopbackPorts.reserve(2 * count);
        String token = "fencelock-" + UUID.randomUUID();
        List<String> names = new ArrayList<>();
        StringBuilder initialCluster = new StringBuilder();
        for (int i = 0; i < count; i++) {
            names.add("m" + (i + 1));
            initialCluster
                    .append(i == 0 ? "" : ",")
                    .append(names.get(i))
                    .append("=http://127.0.0.1:")
                    .append(ports[2 * i + 1]);
        }
        MemberTls tls = (settings.tls != null) ? new MemberTls(settings.tls, settings.clientCertAuth) : null;
        for (int i = 0; i < count; i++) {
            Path directory = createDirectory(names.get(i));
            List<String> command =
                    command(names.get(i), ports[2 * i], ports[2 * i + 1], directory, initialCluster, token);
            if (tls != null) {
                command.addAll(tls.arguments(directory));
            }
            members.add(new EtcdMember(
                    names.get(i), ports[2 * i], ports[2 * i + 1], directory, command, settings.startTimeout, tls));
        }
        return members;
    }

    private List<String> command(
            String name, int clientPort, int peerPort, Path directory, CharSequence initialCluster, String token) {
        String clientUrl = (settings.tls != null ? "https" : "http") + "://127.0.0.1:" + clientPort;
        String peerUrl = "http://127.0.0.1:" + peerPort;
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--name=" + name,
                "--data-dir=" + directory.resolve("data"),
                "--listen-client-urls=" + clientUrl,
                "--advertise-client-urls=" + clientUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=" + initialCluster,
                // Ignored by etcd once the data directory exists, so restart() can reuse this command line as is.
                "--initial-cluster-state=new",
                "--initial-cluster-token=" + token,
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
            JvmExitCleanup.track(directory);
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a data directory for etcd member " + memberName, e);
        }
    }
}
