package dev.fencelock.etcd;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Says why etcd did not answer, by opening a plain TCP connection to each endpoint. A request to an
 * etcd that is not running there fails with gRPC's bare {@code UNAVAILABLE: io exception}, and one
 * to an etcd behind a dead network only runs out of time: neither names the endpoint or the cause.
 * Probes are shared for a second, so an outage that fails many calls at once costs one connection
 * per endpoint.
 */
final class EndpointProbe {

    /** How long one connection attempt may take; a probe ends within it. */
    static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);

    private static final long REUSE_NANOS = Duration.ofSeconds(1).toNanos();

    private final List<String> endpoints;

    private @Nullable CompletableFuture<String> last;

    private long lastStartedNanos;

    EndpointProbe(List<String> endpoints) {
        this.endpoints = List.copyOf(endpoints);
    }

    /**
     * What connecting to each endpoint shows, as a sentence to append to an error ("Connecting to
     * the endpoints: 127.0.0.1:2379 refused the connection."), on a thread of its own.
     */
    synchronized CompletableFuture<String> probe() {
        long now = System.nanoTime();
        if (this.last == null || now - this.lastStartedNanos > REUSE_NANOS) {
            CompletableFuture<String> result = new CompletableFuture<>();
            Thread thread = new Thread(() -> result.complete(connectToAll()), "fencelock-etcd-probe");
            thread.setDaemon(true);
            thread.start();
            this.last = result;
            this.lastStartedNanos = now;
        }
        return this.last;
    }

    private String connectToAll() {
        List<CompletableFuture<Finding>> findings = new ArrayList<>();
        for (String endpoint : this.endpoints) {
            CompletableFuture<Finding> finding = new CompletableFuture<>();
            Thread thread = new Thread(() -> finding.complete(connect(endpoint)), "fencelock-etcd-probe");
            thread.setDaemon(true);
            thread.start();
            findings.add(finding);
        }
        List<Finding> all = findings.stream().map(CompletableFuture::join).toList();
        if (all.stream().allMatch(Finding::connected)) {
            return " Every endpoint accepts TCP connections: etcd runs there but did not answer in time (no quorum,"
                    + " overloaded, or a TLS or authentication setting that does not match).";
        }
        return " Connecting to the endpoints: "
                + all.stream().map(Finding::text).collect(Collectors.joining("; ")) + ".";
    }

    /** One endpoint's finding; {@code text} names it by {@code host:port}. */
    record Finding(boolean connected, String text) {}

    static Finding connect(String endpoint) {
        String address = endpoint;
        try {
            URI uri = URI.create(endpoint);
            if (uri.getHost() == null || uri.getPort() < 0) {
                return new Finding(false, endpoint + " is not a host:port endpoint");
            }
            address = uri.getHost() + ":" + uri.getPort();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) CONNECT_TIMEOUT.toMillis());
                return new Finding(true, address + " accepts connections");
            }
        } catch (ConnectException ex) {
            return new Finding(false, address + " refused the connection (" + ex.getMessage() + ")");
        } catch (SocketTimeoutException ex) {
            return new Finding(
                    false, address + " did not accept a connection within " + CONNECT_TIMEOUT.toMillis() + " ms");
        } catch (UnknownHostException ex) {
            return new Finding(false, address + ": unknown host");
        } catch (IOException | IllegalArgumentException ex) {
            return new Finding(false, address + ": " + ex);
        }
    }
}
