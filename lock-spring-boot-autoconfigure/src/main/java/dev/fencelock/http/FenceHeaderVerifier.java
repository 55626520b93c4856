package dev.fencelock.http;

import dev.fencelock.FencingContext.Fence;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a {@value FenceHeader#NAME} header can be trusted: readable, signed with one of
 * this service's keys (or, where the service trusts callers by mutual TLS, unsigned from a caller
 * with a trusted client certificate), not expired, and from a lock store whose tokens this service
 * compares.
 *
 * <p>The checks run in that order, so a refusal for expiry or scope is only ever given to a
 * header whose signature (or caller) was trusted: an untrusted header cannot learn which of its
 * claims failed. Spring MVC's {@link FencedEndpointInterceptor} and WebFlux's {@link
 * FencedEndpointWebFilter} both decide through {@link #check}, so their answers are the same.
 */
public final class FenceHeaderVerifier {

    private final FenceSigningKeys keys;

    private final Set<String> acceptedScopes;

    private final Duration clockSkew;

    private final Clock clock;

    private final @Nullable MutualTlsTrust mutualTls;

    /**
     * A verifier that trusts signed headers only.
     *
     * @param keys the keys a header may be signed with
     * @param acceptedScopes the fence scopes whose tokens this service's fence table holds: its own
     *     ({@code ""} when it has none) and any other names of the same lock store
     * @param clockSkew how far the callers' clocks may be ahead of this one's
     */
    public FenceHeaderVerifier(FenceSigningKeys keys, Set<String> acceptedScopes, Duration clockSkew, Clock clock) {
        this(keys, acceptedScopes, clockSkew, clock, null);
    }

    /**
     * @param mutualTls where unsigned headers are trusted from callers that authenticated by mutual
     *     TLS, whose callers; {@code null} to trust signed headers only. Signed headers are checked
     *     against {@code keys} either way.
     */
    public FenceHeaderVerifier(
            FenceSigningKeys keys,
            Set<String> acceptedScopes,
            Duration clockSkew,
            Clock clock,
            @Nullable MutualTlsTrust mutualTls) {
        this.keys = keys;
        this.acceptedScopes = Set.copyOf(acceptedScopes);
        this.clockSkew = clockSkew;
        this.clock = clock;
        this.mutualTls = mutualTls;
    }

    /**
     * What a trusted header carries.
     *
     * @param keyId the key that signed it, or {@code null} for an unsigned header
     * @param clientSubject the subject of the client certificate an unsigned header was trusted for,
     *     or {@code null} for a signed header
     */
    public record Verified(
            @Nullable String keyId,
            String scope,
            List<Fence> fences,
            @Nullable String clientSubject) {

        public Verified(String keyId, String scope, List<Fence> fences) {
            this(keyId, scope, fences, null);
        }
    }

    /**
     * Checks the {@value FenceHeader#NAME} headers of a request to a fenced endpoint.
     *
     * @param headers the values of every {@value FenceHeader#NAME} header of the request
     * @param optional whether the endpoint runs without a fence when none is sent
     * @param clientCertificates the client's certificate chain as the TLS layer verified it, or
     *     {@code null}
     * @return the header's fences, or {@code null} for an optional endpoint called without a header
     * @throws FenceHeaderRefusedException for a missing header on an endpoint that requires one,
     *     more than one header, or one that cannot be trusted
     */
    public @Nullable Verified check(
            List<String> headers, boolean optional, X509Certificate @Nullable [] clientCertificates) {
        if (headers.isEmpty() && optional) {
            return null;
        }
        if (headers.isEmpty()) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.MISSING,
                    "This endpoint writes under its caller's lock: send the caller's fence in the " + FenceHeader.NAME
                            + " header (FenceLock's HTTP clients do when the call is made under a lock and a"
                            + " signing key is configured).");
        }
        if (headers.size() > 1) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.MALFORMED,
                    "The request carries " + headers.size() + " " + FenceHeader.NAME
                            + " headers; one header carries all the caller's fences.");
        }
        return verify(headers.get(0), clientCertificates);
    }

    /**
     * Checks a signed {@code value} and returns its fences, each without a local lease.
     *
     * @throws FenceHeaderRefusedException saying why the header is not trusted
     */
    public Verified verify(String value) {
        return verify(value, null);
    }

    /**
     * Checks {@code value}, from a caller with the given client certificates, and returns its
     * fences, each without a local lease.
     *
     * @throws FenceHeaderRefusedException saying why the header is not trusted
     */
    public Verified verify(String value, X509Certificate @Nullable [] clientCertificates) {
        MutualTlsTrust mutualTls = this.mutualTls;
        // Without trust by mutual TLS, an unsigned header is refused as it is read.
        FenceHeader.Parsed header = FenceHeader.parse(value, mutualTls != null);
        String keyId = header.keyId();
        byte[] signature = header.signature();
        String clientSubject = null;
        if (keyId != null && signature != null) {
            this.keys.verify(keyId, header.signedPart(), signature);
        } else {
            clientSubject = Objects.requireNonNull(mutualTls).subjectOf(clientCertificates);
        }
        long now = this.clock.instant().getEpochSecond();
        if (now > header.expiresAt() + this.clockSkew.toSeconds()) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.EXPIRED,
                    "The " + FenceHeader.NAME + " header expired " + (now - header.expiresAt())
                            + "s ago (allowed clock skew: " + this.clockSkew.toSeconds()
                            + "s): a header is written for each request and is not to be replayed.");
        }
        if (!this.acceptedScopes.contains(header.scope())) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.SCOPE,
                    "The fences of the " + FenceHeader.NAME + " header come from fence scope '" + header.scope()
                            + "', whose tokens this service does not compare (it accepts " + this.acceptedScopes
                            + "): tokens of different lock stores must never meet in one fence row. Set the same"
                            + " fencelock.fencing.scope on both services, or list the scope in"
                            + " fencelock.http.server.accepted-scopes if it names the same lock store.");
        }
        return new Verified(header.keyId(), header.scope(), header.fences(), clientSubject);
    }
}
