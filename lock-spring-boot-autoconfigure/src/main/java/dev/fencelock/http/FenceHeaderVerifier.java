package dev.fencelock.http;

import dev.fencelock.FencingContext.Fence;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a {@value FenceHeader#NAME} header can be trusted: readable, signed with one of
 * this service's keys, not expired, and from a lock store whose tokens this service compares.
 *
 * <p>The checks run in that order, so a refusal for expiry or scope is only ever given to a
 * header whose signature held: an unsigned header cannot learn which of its claims failed.
 */
public final class FenceHeaderVerifier {

    private final FenceSigningKeys keys;

    private final Set<String> acceptedScopes;

    private final Duration clockSkew;

    private final Clock clock;

    /**
     * @param keys the keys a header may be signed with
     * @param acceptedScopes the fence scopes whose tokens this service's fence table holds: its own
     *     ({@code ""} when it has none) and any other names of the same lock store
     * @param clockSkew how far the callers' clocks may be ahead of this one's
     */
    public FenceHeaderVerifier(FenceSigningKeys keys, Set<String> acceptedScopes, Duration clockSkew, Clock clock) {
        this.keys = keys;
        this.acceptedScopes = Set.copyOf(acceptedScopes);
        this.clockSkew = clockSkew;
        this.clock = clock;
    }

    /** What a trusted header carries. */
    public record Verified(String keyId, String scope, List<Fence> fences) {}

    /**
     * Checks {@code value} and returns its fences, each without a local lease.
     *
     * @throws FenceHeaderRefusedException saying why the header is not trusted
     */
    public Verified verify(String value) {
        FenceHeader.Parsed header = FenceHeader.parse(value);
        this.keys.verify(header.keyId(), header.signedPart(), header.signature());
        long now = this.clock.instant().getEpochSecond();
        if (now > header.expiresAt() + this.clockSkew.toSeconds()) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.EXPIRED,
                    "The " + FenceHeader.NAME + " header expired " + (now - header.expiresAt())
                            + "s ago (allowed clock skew: " + this.clockSkew.toSeconds()
                            + "s): a header is signed for each request and is not to be replayed.");
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
        return new Verified(header.keyId(), header.scope(), header.fences());
    }
}
