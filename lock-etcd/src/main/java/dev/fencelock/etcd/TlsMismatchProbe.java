package dev.fencelock.etcd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether an etcd port that dropped a connection speaks the other protocol. A TLS port
 * closes a plain-text connection without a word ("Network closed for unknown reason"), and a
 * plain-text port closes a TLS handshake the same way ("Connection closed while performing TLS
 * negotiation"), just as any dropped connection would. So this asks the port in the other
 * protocol: a TLS handshake stopped as soon as the server shows a certificate (nothing sent,
 * nothing trusted), or a plain HTTP request for {@code /health}. Asked at most once per client
 * and direction, only after such a failure.
 */
final class TlsMismatchProbe {

    private static final int TIMEOUT_MILLIS = 1000;

    private final List<String> endpoints;

    private final AtomicReference<@Nullable CompletableFuture<Boolean>> tlsAnswer = new AtomicReference<>();

    private final AtomicReference<@Nullable CompletableFuture<Boolean>> plainAnswer = new AtomicReference<>();

    TlsMismatchProbe(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    /** Whether the first endpoint serves TLS; {@code false} when it cannot tell. Never fails. */
    CompletableFuture<Boolean> servesTls() {
        return once(this.tlsAnswer, () -> showsCertificate(URI.create(this.endpoints.get(0))));
    }

    /** Whether the first endpoint answers plain HTTP; {@code false} when it cannot tell. Never fails. */
    CompletableFuture<Boolean> servesPlainText() {
        return once(this.plainAnswer, () -> answersPlainHttp(URI.create(this.endpoints.get(0))));
    }

    private static CompletableFuture<Boolean> once(
            AtomicReference<@Nullable CompletableFuture<Boolean>> answer, BooleanSupplier probe) {
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        if (!answer.compareAndSet(null, mine)) {
            return answer.get();
        }
        Thread thread = new Thread(() -> mine.complete(probe.getAsBoolean()), "fencelock-etcd-tls-probe");
        thread.setDaemon(true);
        thread.start();
        return mine;
    }

    private static boolean answersPlainHttp(URI endpoint) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            String request = "GET /health HTTP/1.1\r\nHost: " + endpoint.getHost() + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            byte[] start = socket.getInputStream().readNBytes(5);
            return new String(start, StandardCharsets.US_ASCII).equals("HTTP/");
        } catch (IOException | RuntimeException ex) {
            return false;
        }
    }

    private static boolean showsCertificate(URI endpoint) {
        AtomicBoolean shown = new AtomicBoolean();
        // Trusts nothing: it only notes that a certificate arrived, and ends the handshake there.
        X509TrustManager noteOnly = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("not a server");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                shown.set(true);
                throw new CertificateException("probe only: the server speaks TLS");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), TIMEOUT_MILLIS);
            raw.setSoTimeout(TIMEOUT_MILLIS);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {noteOnly}, null);
            try (SSLSocket tls = (SSLSocket)
                    context.getSocketFactory().createSocket(raw, endpoint.getHost(), endpoint.getPort(), false)) {
                tls.startHandshake();
            } catch (IOException expected) {
                // The handshake ends here by design; whether a certificate was shown is the answer.
            }
        } catch (IOException | GeneralSecurityException | RuntimeException ex) {
            return shown.get();
        }
        return shown.get();
    }
}
