package dev.fencelock.etcd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether an etcd port that dropped a connection speaks the other protocol. A TLS port
 * drops a plain-text connection without a word: closed ("Network closed for unknown reason") or,
 * when some of the client's bytes were still unread, reset ("Connection reset"); and a plain-text
 * port closes a TLS handshake the same way ("Connection closed while performing TLS negotiation"),
 * just as any dropped connection would. So this asks the port in the other protocol: a TLS
 * handshake stopped as soon as the server shows a certificate (nothing sent, nothing trusted), or a
 * plain HTTP request for {@code /health}.
 *
 * <p>A question may take as long as any request may (the request timeout), so a loaded machine's
 * slow answer is still heard. It is asked only after such a failure; callers arriving while it is
 * asked, or within a second of its answer, share it, so a burst of failures costs one connection.
 */
final class TlsMismatchProbe {

    private static final long REUSE_NANOS = Duration.ofSeconds(1).toNanos();

    private final List<String> endpoints;

    private final Duration bound;

    private final Question tls = new Question();

    private final Question plainText = new Question();

    /** @param bound how long one question may take: connecting, then waiting for the answer */
    TlsMismatchProbe(List<String> endpoints, Duration bound) {
        this.endpoints = endpoints;
        this.bound = bound;
    }

    /** Whether the first endpoint serves TLS; {@code false} when it cannot tell. Never fails. */
    CompletableFuture<Boolean> servesTls() {
        return this.tls.ask(() -> showsCertificate(URI.create(this.endpoints.get(0)), this.bound));
    }

    /** Whether the first endpoint answers plain HTTP; {@code false} when it cannot tell. Never fails. */
    CompletableFuture<Boolean> servesPlainText() {
        return this.plainText.ask(() -> answersPlainHttp(URI.create(this.endpoints.get(0)), this.bound));
    }

    /** One question to the port, on a thread of its own; shared while asked and for a second after. */
    private static final class Question {

        private @Nullable CompletableFuture<Boolean> answer;

        private long answeredNanos;

        synchronized CompletableFuture<Boolean> ask(BooleanSupplier probe) {
            CompletableFuture<Boolean> last = this.answer;
            if (last != null && (!last.isDone() || System.nanoTime() - this.answeredNanos < REUSE_NANOS)) {
                return last;
            }
            CompletableFuture<Boolean> next = new CompletableFuture<>();
            this.answer = next;
            Thread thread = new Thread(
                    () -> {
                        boolean yes = probe.getAsBoolean();
                        synchronized (this) {
                            this.answeredNanos = System.nanoTime();
                        }
                        next.complete(yes);
                    },
                    "fencelock-etcd-tls-probe");
            thread.setDaemon(true);
            thread.start();
            return next;
        }
    }

    /** Connects within {@code bound} and gives the wait for the answer whatever of it is left. */
    private static void connect(Socket socket, URI endpoint, Duration bound) throws IOException {
        long deadline = System.nanoTime() + bound.toNanos();
        socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), millis(bound.toNanos()));
        socket.setSoTimeout(millis(deadline - System.nanoTime()));
    }

    /** At least 1 ms: a socket timeout of 0 would wait forever. */
    private static int millis(long nanos) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(nanos)));
    }

    private static boolean answersPlainHttp(URI endpoint, Duration bound) {
        try (Socket socket = new Socket()) {
            connect(socket, endpoint, bound);
            String request = "GET /health HTTP/1.1\r\nHost: " + endpoint.getHost() + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            byte[] start = socket.getInputStream().readNBytes(5);
            return new String(start, StandardCharsets.US_ASCII).equals("HTTP/");
        } catch (IOException | RuntimeException ex) {
            return false;
        }
    }

    private static boolean showsCertificate(URI endpoint, Duration bound) {
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
            connect(raw, endpoint, bound);
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
