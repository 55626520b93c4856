package dev.fencelock.http;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds the current thread's fences, signed, to each request of a {@code RestClient} or {@code
 * RestTemplate} ({@value FenceHeader#NAME}), so the service called can refuse the call in its own
 * database when this caller's lock has passed to a newer holder. A call made under no lock goes
 * out unchanged.
 *
 * <p>It runs where the request is executed, on the calling thread: inside the client's observation
 * when the client is observed, so the call's trace covers it.
 */
public final class FenceHeaderClientInterceptor implements ClientHttpRequestInterceptor {

    private final FenceHeaderSigner signer;

    private final Set<String> hosts;

    /**
     * @param hosts the hosts that receive fences; empty for every host
     */
    public FenceHeaderClientInterceptor(FenceHeaderSigner signer, Set<String> hosts) {
        this.signer = signer;
        this.hosts = lowerCase(hosts);
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        if (sendsTo(this.hosts, request.getURI())) {
            String header = this.signer.headerForCurrentThread();
            if (header != null) {
                request.getHeaders().set(FenceHeader.NAME, header);
            }
        }
        return execution.execute(request, body);
    }

    static boolean sendsTo(Set<String> hosts, URI uri) {
        return hosts.isEmpty()
                || (uri.getHost() != null && hosts.contains(uri.getHost().toLowerCase(Locale.ROOT)));
    }

    static Set<String> lowerCase(Set<String> hosts) {
        return hosts.stream().map(host -> host.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
