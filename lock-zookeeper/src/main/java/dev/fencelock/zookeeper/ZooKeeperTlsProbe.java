package dev.fencelock.zookeeper;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockStoreAccessDeniedException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * Tells why a session that never connected cannot connect, when the reason is TLS. The ZooKeeper
 * client retries a failed handshake for ever and only logs it, so a lock would wait its whole wait
 * time for a connection that cannot come. After a failed attempt, this probe talks to each server
 * itself: with this client's own TLS context when TLS is on, with a ClientHello that only records
 * the server's certificate (and trusts nothing) when it is off.
 *
 * <p>A verdict is given only when no server could be reached as configured and at least one gave
 * a definite TLS answer: a certificate this client does not trust, an alert refusing this client's
 * certificate, a plain-text ZooKeeper answering on the port a TLS client was given, or a
 * certificate shown to a plain-text client. A server that cannot be reached says nothing.
 */
final class ZooKeeperTlsProbe {

    private static final int TIMEOUT_MILLIS = 5_000;

    private static final List<String> CERTIFICATE_ALERTS = List.of(
            "bad_certificate",
            "certificate_required",
            "unknown_ca",
            "certificate_unknown",
            "certificate_expired",
            "certificate_revoked",
            "unsupported_certificate",
            "access_denied");

    private ZooKeeperTlsProbe() {}

    /**
     * The TLS failure that keeps {@code connectString}'s servers from accepting this client, or
     * {@code null} when there is none to name.
     *
     * @param tls the client's TLS context, or {@code null} for a plain-text client
     */
    static @Nullable LockException diagnose(String connectString, @Nullable SSLContext tls, String backend) {
        List<LockException> verdicts = new ArrayList<>();
        for (InetSocketAddress server : servers(connectString)) {
            Verdict verdict = (tls != null) ? tlsClient(server, tls, backend) : plainClient(server, backend);
            if (verdict.fine) {
                return null;
            }
            if (verdict.failure != null) {
                verdicts.add(verdict.failure);
            }
        }
        return verdicts.isEmpty() ? null : verdicts.get(0);
    }

    private static Verdict tlsClient(InetSocketAddress server, SSLContext tls, String backend) {
        String where = backend + " (server " + server.getHostString() + ":" + server.getPort() + ")";
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket()) {
            socket.connect(server, TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            try {
                socket.startHandshake();
                // TLS 1.3 servers check the client's certificate after the client's handshake is done.
                socket.setSoTimeout(1_000);
                socket.getInputStream().read();
            } catch (SocketTimeoutException ex) {
                return Verdict.FINE; // waiting for the session request: it accepted this client
            } catch (SSLException ex) {
                return Verdict.of(handshakeFailure(server, where, ex));
            }
            return Verdict.FINE;
        } catch (IOException ex) {
            return Verdict.UNREACHABLE;
        }
    }

    private static @Nullable LockException handshakeFailure(InetSocketAddress server, String where, SSLException ex) {
        CertificateException untrusted = cause(ex, CertificateException.class);
        if (untrusted != null) {
            return new LockBackendUnavailableException(
                    "TLS handshake with " + where + " failed: the server's"
                            + " certificate is not trusted (" + untrusted.getMessage()
                            + "). The trust store must hold the"
                            + " authority that issued the servers' certificates, and with hostname verification on (the"
                            + " default) a server's certificate must name the host of the connect string",
                    ex);
        }
        String message = String.valueOf(ex.getMessage()).toLowerCase(Locale.ROOT);
        if (message.contains("received fatal alert")) {
            if (CERTIFICATE_ALERTS.stream().anyMatch(message::contains)) {
                return new LockStoreAccessDeniedException(
                        "TLS handshake with " + where + " failed: the server"
                                + " refused this client's TLS certificate (" + ex.getMessage()
                                + "). Give a key store whose"
                                + " certificate the servers' ssl.trustStore trusts; servers ask for one unless their"
                                + " ssl.clientAuth is none",
                        ex);
            }
            return new LockBackendUnavailableException(
                    "TLS handshake with " + where + " failed: "
                            + ex.getMessage() + "; check that the client's and the servers' TLS protocols and cipher"
                            + " suites overlap",
                    ex);
        }
        if (speaksPlainZooKeeper(server)) {
            return new LockBackendUnavailableException(
                    where + " does not speak TLS on this port: it answers as a"
                            + " plain-text ZooKeeper. Use the servers' secureClientPort in the connect string, or turn"
                            + " TLS off for a plain-text ensemble",
                    ex);
        }
        return null;
    }

    /** A {@code srvr} four-letter command, which a plain-text client port answers and a TLS port does not. */
    private static boolean speaksPlainZooKeeper(InetSocketAddress server) {
        try (Socket socket = new Socket()) {
            socket.connect(server, TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readNBytes(200), StandardCharsets.US_ASCII);
            return answer.contains("ZooKeeper") || answer.contains("Zookeeper") || answer.contains("srvr");
        } catch (IOException ex) {
            return false;
        }
    }

    private static Verdict plainClient(InetSocketAddress server, String backend) {
        AtomicBoolean certificateShown = new AtomicBoolean();
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new CertificateRecorder(certificateShown)}, null);
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
                socket.connect(server, TIMEOUT_MILLIS);
                socket.setSoTimeout(TIMEOUT_MILLIS);
                try {
                    socket.startHandshake();
                } catch (IOException ex) {
                    // The recorder refuses every certificate; all that counts is whether one was shown.
                }
            }
        } catch (GeneralSecurityException ex) {
            return Verdict.UNREACHABLE;
        } catch (IOException ex) {
            if (!certificateShown.get()) {
                return Verdict.UNREACHABLE;
            }
        }
        if (!certificateShown.get()) {
            return Verdict.FINE;
        }
        return Verdict.of(new LockBackendUnavailableException(backend + " (server " + server.getHostString() + ":"
                + server.getPort() + ") serves TLS, but this client speaks plain text: configure TLS (a"
                + " ZooKeeperTls with the trust store of the servers' authority, fencelock.zookeeper.tls.* in"
                + " Spring Boot), or use the servers' plain-text clientPort"));
    }

    private static List<InetSocketAddress> servers(String connectString) {
        int chroot = connectString.indexOf('/');
        String hosts = (chroot >= 0) ? connectString.substring(0, chroot) : connectString;
        List<InetSocketAddress> servers = new ArrayList<>();
        for (String server : hosts.split(",")) {
            String hostPort = server.strip();
            int colon = hostPort.lastIndexOf(':');
            boolean hasPort = colon > 0 && hostPort.indexOf(']') < colon;
            String host = hasPort ? hostPort.substring(0, colon) : hostPort;
            int port = hasPort ? Integer.parseInt(hostPort.substring(colon + 1)) : 2181;
            servers.add(InetSocketAddress.createUnresolved(host.replace("[", "").replace("]", ""), port));
        }
        return servers.stream()
                .map(unresolved -> new InetSocketAddress(unresolved.getHostString(), unresolved.getPort()))
                .toList();
    }

    private static <T extends Throwable> @Nullable T cause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }

    /** What one server said: it accepts this client, it could not be reached, or it refused it for a named reason. */
    private record Verdict(boolean fine, @Nullable LockException failure) {

        static final Verdict FINE = new Verdict(true, null);

        static final Verdict UNREACHABLE = new Verdict(false, null);

        static Verdict of(@Nullable LockException failure) {
            return new Verdict(false, failure);
        }
    }

    /** Trusts nothing; notes that the server showed a certificate, which only a TLS server does. */
    private static final class CertificateRecorder implements X509TrustManager {

        private final AtomicBoolean shown;

        CertificateRecorder(AtomicBoolean shown) {
            this.shown = shown;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("only probing");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            this.shown.set(chain.length > 0);
            throw new CertificateException("only probing whether the port serves TLS");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
