package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Finds which local process opened a loopback TCP connection, from Linux's {@code /proc}.
 *
 * <p>etcd members cannot be told which source address to dial from, and not every request they send each other
 * names its sender (lease renewals forwarded to the leader carry no {@code X-Server-From} header), so the only
 * reliable way to know which member is at the far end of an accepted connection is to ask the kernel who owns the
 * other end of the socket.
 */
final class ConnectionOrigin {

    private static final Path TCP_TABLE = Path.of("/proc/net/tcp");

    private ConnectionOrigin() {}

    /**
     * The PID among {@code candidates} that owns the client end of a connection accepted on {@code localPort} from
     * 127.0.0.1:{@code remotePort}; empty if none of them does (another process, or one that exited meanwhile).
     */
    static OptionalLong ownerOf(int localPort, int remotePort, List<Long> candidates) {
        String inode = clientSocketInode(localPort, remotePort);
        if (inode == null) {
            return OptionalLong.empty();
        }
        String link = "socket:[" + inode + "]";
        for (long pid : candidates) {
            if (ownsSocket(pid, link)) {
                return OptionalLong.of(pid);
            }
        }
        return OptionalLong.empty();
    }

    /** The inode of the socket whose local port is {@code remotePort} and whose peer port is {@code localPort}. */
    private static @Nullable String clientSocketInode(int localPort, int remotePort) {
        List<String> lines;
        try {
            lines = Files.readAllLines(TCP_TABLE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + TCP_TABLE + " (the peer network needs Linux)", e);
        }
        for (int i = 1; i < lines.size(); i++) {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            String[] fields = lines.get(i).trim().split("\\s+");
            if (fields.length > 9 && port(fields[1]) == remotePort && port(fields[2]) == localPort) {
                return fields[9];
            }
        }
        return null;
    }

    private static int port(String hexAddress) {
        return Integer.parseInt(hexAddress.substring(hexAddress.indexOf(':') + 1), 16);
    }

    private static boolean ownsSocket(long pid, String link) {
        try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path descriptor : descriptors) {
                if (link.equals(readLink(descriptor))) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false; // the process is gone
        }
    }

    private static String readLink(Path descriptor) {
        try {
            return Files.readSymbolicLink(descriptor).toString();
        } catch (IOException e) {
            return ""; // closed while we looked
        }
    }
}
