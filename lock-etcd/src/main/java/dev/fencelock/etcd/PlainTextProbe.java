package dev.fencelock.etcd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether the etcd port that dropped a plain-text gRPC connection serves TLS. A TLS port
 * closes such a connection without a word, which gRPC reports as "Network closed for unknown
 * reason", the same as any dropped connection. So this starts a TLS handshake and stops it as soon
 * as the server shows a certificate: nothing is sent, nothing is trusted. Asked once per client,
 * only after such a failure.
 */
final class PlainTextProbe {

    private static final int TIMEOUT_MILLIS = 1000;

    private final List<String> endpoints;

    private final AtomicReference<@Nullable CompletableFuture<Boolean>> answer = new AtomicReference<>();

    PlainTextProbe(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    /** Whether the first endpoint serves TLS; {@code false} when it cannot tell. Never fails. */
    CompletableFuture<Boolean> servesTls() {
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        if (!this.answer.compareAndSet(null, mine)) {
            return this.answer.get();
        }
        Thread probe = new Thread(
                () -> mine.complete(showsCertificate(URI.create(this.endpoints.get(0)))), "fencelock-etcd-tls-probe");
        probe.setDaemon(true);
        probe.start();
        return mine;
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
