package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Plain HTTP calls to the etcd members' client URLs (health, metrics and the grpc-gateway), kept separate from
 * any gRPC client so the launcher can observe a member even while the library under test misbehaves.
 */
final class LoopbackHttp {

    /** For members that serve plain HTTP. */
    static final LoopbackHttp PLAIN = new LoopbackHttp(null);

    private final HttpClient client;

    private LoopbackHttp(@Nullable SSLContext tls) {
        // HTTP/1.1 on purpose: the JDK default (HTTP/2 via an Upgrade header) adds nothing against etcd's gateway.
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2));
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.client = builder.build();
    }

    /** For members that serve TLS: trusts their authority and shows a client certificate if they ask for one. */
    static LoopbackHttp tls(SSLContext tls) {
        return new LoopbackHttp(tls);
    }

    /**
     * Sends one request and returns the body of a 2xx answer.
     *
     * @throws IOException on connection failure, timeout or a non-2xx status (the message carries the body,
     *     which is what explains etcd's 503 answers)
     */
    String http(String method, String url, @Nullable String body, Duration timeout) throws IOException {
        CompletableFuture<String> answer = httpAsync(method, url, body, timeout);
        try {
            return answer.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw (cause instanceof IOException io) ? io : new IOException(method + " " + url + " failed", cause);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted during " + method + " " + url);
        }
    }

    /** Like {@link #http} but without blocking, so several members can be asked at the same time. */
    CompletableFuture<String> httpAsync(String method, String url, @Nullable String body, Duration timeout) {
        CompletableFuture<HttpResponse<String>> exchange =
                client.sendAsync(request(method, url, body, timeout), HttpResponse.BodyHandlers.ofString());
        // The request's timeout ends the wait for the headers only: a member stopped or restarted by a
        // fault may send them and never the body. So the whole exchange is bounded here too.
        CompletableFuture<String> answer = new CompletableFuture<>();
        exchange.whenComplete((response, failure) -> {
            if (failure != null) {
                Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
                        ? failure.getCause()
                        : failure;
                answer.completeExceptionally(cause);
                return;
            }
            try {
                answer.complete(check(method, url, response));
            } catch (IOException e) {
                answer.completeExceptionally(e);
            }
        });
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .execute(() -> {
                    if (answer.completeExceptionally(new HttpTimeoutException(
                            method + " " + url + " did not answer in full within " + timeout))) {
                        exchange.cancel(true);
                    }
                });
        return answer;
    }

    private static HttpRequest request(String method, String url, @Nullable String body, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url)).timeout(timeout);
        if (body == null) {
            return builder.method(method, HttpRequest.BodyPublishers.noBody()).build();
        }
        return builder.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private static String check(String method, String url, HttpResponse<String> response) throws IOException {
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            throw new IOException(method + " " + url + " answered HTTP " + status + ": " + response.body());
        }
        return response.body();
    }
}
