package dev.fencelock.autoconfigure.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The fence over HTTP: signed fence headers sent by HTTP clients and taken by fenced endpoints. */
@ConfigurationProperties("fencelock.http")
public class FenceLockHttpProperties {

    private final Signing signing = new Signing();

    private final Client client = new Client();

    private final Server server = new Server();

    public Signing getSigning() {
        return this.signing;
    }

    public Client getClient() {
        return this.client;
    }

    public Server getServer() {
        return this.server;
    }

    /** The HMAC-SHA256 keys that sign fence headers and check them. */
    public static class Signing {

        /**
         * Secret of each signing key, Base64-encoded (at least 32 bytes), by key id. A service
         * accepts headers signed with any of them, so a new key is added everywhere before it signs.
         */
        private Map<String, String> keys = new LinkedHashMap<>();

        /** Id of the key that signs outgoing fence headers; nothing is sent when not set. */
        private @Nullable String currentKey;

        /** How long a signed fence header stays valid, at least 1s; its expiry is written in whole seconds. */
        private Duration validity = Duration.ofSeconds(30);

        public Map<String, String> getKeys() {
            return this.keys;
        }

        public void setKeys(Map<String, String> keys) {
            this.keys = keys;
        }

        public @Nullable String getCurrentKey() {
            return this.currentKey;
        }

        public void setCurrentKey(@Nullable String currentKey) {
            this.currentKey = currentKey;
        }

        public Duration getValidity() {
            return this.validity;
        }

        public void setValidity(Duration validity) {
            this.validity = validity;
        }
    }

    /** The fence header on RestClient, RestTemplate and WebClient requests. */
    public static class Client {

        /**
         * Whether RestClient, RestTemplate and WebClient builders add the current thread's fences
         * to each request, when a current signing key is set.
         */
        private boolean enabled = true;

        /** Hosts that receive the fence header; every host when empty. */
        private List<String> hosts = new ArrayList<>();

        /**
         * Whether to send the fence header unsigned, to services that trust this one by its client
         * certificate (fencelock.http.server.trust=mutual-tls there); only without a current signing key.
         */
        private boolean unsigned;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getHosts() {
            return this.hosts;
        }

        public void setHosts(List<String> hosts) {
            this.hosts = hosts;
        }

        public boolean isUnsigned() {
            return this.unsigned;
        }

        public void setUnsigned(boolean unsigned) {
            this.unsigned = unsigned;
        }
    }

    /** Spring MVC and WebFlux endpoints that write under their caller's fence. */
    public static class Server {

        /** Whether endpoints marked @FencedEndpoint, or matched by the paths below, take the caller's fence. */
        private boolean enabled = true;

        /**
         * Path patterns of endpoints that require a fence header, as @FencedEndpoint does; a request
         * without one is refused with 428.
         */
        private List<String> paths = new ArrayList<>();

        /**
         * Path patterns of endpoints that take a fence header when one is sent, as
         * @FencedEndpoint(optional = true) does; a request without one runs unfenced.
         */
        private List<String> optionalPaths = new ArrayList<>();

        /**
         * Fence scopes accepted besides fencelock.fencing.scope: other names of this service's own
         * lock store only (while a scope is rolled out, say), since the fences are presented to this
         * service's fence rows.
         */
        private List<String> acceptedScopes = new ArrayList<>();

        /** How long past its expiry a fence header is still accepted, for callers whose clocks run behind. */
        private Duration clockSkew = Duration.ofSeconds(5);

        /** How fence headers are trusted: signed with a shared key, or also unsigned from callers with a client certificate. */
        private Trust trust = Trust.SIGNATURE;

        /**
         * Subjects (distinguished names) of the client certificates whose unsigned fence headers are
         * trusted, with trust=mutual-tls; every client certificate the server's TLS set-up verified when empty.
         */
        private List<String> trustedSubjects = new ArrayList<>();

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getPaths() {
            return this.paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public List<String> getOptionalPaths() {
            return this.optionalPaths;
        }

        public void setOptionalPaths(List<String> optionalPaths) {
            this.optionalPaths = optionalPaths;
        }

        public List<String> getAcceptedScopes() {
            return this.acceptedScopes;
        }

        public void setAcceptedScopes(List<String> acceptedScopes) {
            this.acceptedScopes = acceptedScopes;
        }

        public Duration getClockSkew() {
            return this.clockSkew;
        }

        public void setClockSkew(Duration clockSkew) {
            this.clockSkew = clockSkew;
        }

        public Trust getTrust() {
            return this.trust;
        }

        public void setTrust(Trust trust) {
            this.trust = trust;
        }

        public List<String> getTrustedSubjects() {
            return this.trustedSubjects;
        }

        public void setTrustedSubjects(List<String> trustedSubjects) {
            this.trustedSubjects = trustedSubjects;
        }
    }

    /** How a service trusts the fence headers its callers send. */
    public enum Trust {

        /** Only headers signed with one of fencelock.http.signing.keys. */
        SIGNATURE,

        /**
         * Signed headers as with SIGNATURE, and unsigned ones from requests that came over TLS with a
         * client certificate the server verified (restricted to trusted-subjects when set).
         */
        MUTUAL_TLS
    }
}
