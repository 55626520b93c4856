package dev.fencelock.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.io.Resource;

/**
 * Checks bound {@link FenceLockProperties} and names the offending property in the error, so a
 * typo in {@code application.yml} is found at startup rather than by the first lock call. Errors
 * are {@link InvalidConfigurationPropertyValueException}s, which Spring Boot's failure analysis
 * reports with the property's value and where it was set.
 */
final class FenceLockPropertiesCheck {

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    private final FenceLockProperties properties;

    FenceLockPropertiesCheck(FenceLockProperties properties) {
        this.properties = properties;
    }

    void check() {
        FenceLockProperties p = this.properties;
        notNegative("fencelock.lease-ttl", p.getLeaseTtl());
        notNegative("fencelock.wait-timeout", p.getWaitTimeout());
        notNegative("fencelock.max-lease-ttl", p.getMaxLeaseTtl());
        notNegative("fencelock.max-wait-timeout", p.getMaxWaitTimeout());
        if (p.getLeaseTtl().compareTo(ONE_SECOND) < 0) {
            fail("fencelock.lease-ttl", p.getLeaseTtl(), "must be at least 1s, because etcd leases are whole seconds");
        }
        if (p.getLeaseTtl().compareTo(p.getMaxLeaseTtl()) > 0) {
            fail(
                    "fencelock.lease-ttl",
                    p.getLeaseTtl(),
                    "must not exceed fencelock.max-lease-ttl (" + p.getMaxLeaseTtl()
                            + "); raise one or lower the other");
        }
        if (p.getWaitTimeout().compareTo(p.getMaxWaitTimeout()) > 0) {
            fail(
                    "fencelock.wait-timeout",
                    p.getWaitTimeout(),
                    "must not exceed fencelock.max-wait-timeout (" + p.getMaxWaitTimeout()
                            + "); raise one or lower the other");
        }
        atLeastOne("fencelock.max-waiters-per-resource", p.getMaxWaitersPerResource());
        atLeastOne("fencelock.max-resource-length", p.getMaxResourceLength());
        if (p.getHotResources().getSize() < 0 || p.getHotResources().getSize() > 1000) {
            fail("fencelock.hot-resources.size", p.getHotResources().getSize(), "must be between 0 and 1000");
        }
        positive("fencelock.hot-resources.half-life", p.getHotResources().getHalfLife());
        checkNamespace(p.getNamespace());
        if (p.getBackend() == FenceLockProperties.Backend.ETCD) {
            checkEtcd(p.getEtcd());
        }
    }

    private void checkNamespace(@Nullable String namespace) {
        if (namespace == null
                || namespace.length() < 2
                || namespace.charAt(0) != '/'
                || namespace.endsWith("/")
                || !namespace.chars().allMatch((c) -> c > 0x20 && c < 0x7f)) {
            fail(
                    "fencelock.namespace",
                    namespace,
                    "must start with '/', must not end with '/' and may use printable ASCII only, e.g. /fencelock");
        }
    }

    private void checkEtcd(FenceLockEtcdProperties etcd) {
        positive("fencelock.etcd.connect-timeout", etcd.getConnectTimeout());
        positive("fencelock.etcd.request-timeout", etcd.getRequestTimeout());
        positive("fencelock.etcd.attempt-timeout", etcd.getAttemptTimeout());
        notNegative("fencelock.etcd.capacity-check-interval", etcd.getCapacityCheckInterval());
        if (etcd.getQuotaBackendBytes() == null || etcd.getQuotaBackendBytes().toBytes() <= 0) {
            fail(
                    "fencelock.etcd.quota-backend-bytes",
                    etcd.getQuotaBackendBytes(),
                    "must be positive: the --quota-backend-bytes of the etcd cluster (2GB unless set)");
        }
        List<String> endpoints = etcd.getEndpoints();
        if (endpoints == null || endpoints.isEmpty()) {
            fail(
                    "fencelock.etcd.endpoints",
                    endpoints,
                    "must list at least one etcd client URL, e.g. http://127.0.0.1:2379");
        }
        for (int i = 0; i < endpoints.size(); i++) {
            checkEndpoint(i, endpoints.get(i));
        }
        if ((etcd.getUsername() == null) != (etcd.getPassword() == null)) {
            fail("fencelock.etcd.username", etcd.getUsername(), "and fencelock.etcd.password must be set together");
        }
        FenceLockEtcdProperties.Tls tls = etcd.getTls();
        if ((tls.getCertificate() == null) != (tls.getPrivateKey() == null)) {
            fail(
                    "fencelock.etcd.tls.certificate",
                    tls.getCertificate(),
                    "and fencelock.etcd.tls.private-key must be set together for client certificate authentication");
        }
        String bundle = etcd.getSsl().getBundle();
        if (bundle != null && bundle.isBlank()) {
            fail("fencelock.etcd.ssl.bundle", bundle, "must name an SSL bundle (spring.ssl.bundle.*) or be left unset");
        }
        if (bundle != null
                && (tls.getCaCertificate() != null || tls.getCertificate() != null || tls.getPrivateKey() != null)) {
            fail(
                    "fencelock.etcd.ssl.bundle",
                    bundle,
                    "and the PEM files of fencelock.etcd.tls.* are two sources of the same TLS material; use one");
        }
        if (tls.isEnabled()) {
            readable("fencelock.etcd.tls.ca-certificate", tls.getCaCertificate());
            readable("fencelock.etcd.tls.certificate", tls.getCertificate());
            readable("fencelock.etcd.tls.private-key", tls.getPrivateKey());
        }
    }

    private static void readable(String property, @Nullable Resource resource) {
        if (resource != null && !resource.isReadable()) {
            fail(property, resource, "does not exist or cannot be read");
        }
    }

    /**
     * Fails naming the list property, where Boot finds a comma-separated value and its origin, and
     * the entry in the reason.
     */
    private static void checkEndpoint(int index, @Nullable String endpoint) {
        String problem = endpointProblem(endpoint);
        if (problem != null) {
            String entry = "fencelock.etcd.endpoints[" + index + "]";
            throw new InvalidConfigurationPropertyValueException(
                    "fencelock.etcd.endpoints",
                    endpoint,
                    entry + " ('" + endpoint + "') " + problem + "; expected a URL such as http://10.0.0.1:2379.");
        }
    }

    private static @Nullable String endpointProblem(@Nullable String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            return "must not be empty";
        }
        try {
            URI uri = new URI(endpoint.trim());
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
                return "must use the http or https scheme";
            }
            if (uri.getHost() == null || uri.getPort() < 1) {
                return "must name a host and a port";
            }
            return null;
        } catch (URISyntaxException ex) {
            return "is not a valid URL (" + ex.getReason() + ")";
        }
    }

    private static void notNegative(String property, @Nullable Duration value) {
        if (value == null || value.isNegative()) {
            fail(property, value, "must not be negative");
        }
    }

    private static void positive(String property, @Nullable Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            fail(property, value, "must be positive");
        }
    }

    private static void atLeastOne(String property, int value) {
        if (value < 1) {
            fail(property, value, "must be at least 1");
        }
    }

    private static void fail(String property, @Nullable Object value, String problem) {
        throw new InvalidConfigurationPropertyValueException(property, value, property + " " + problem + ".");
    }
}
