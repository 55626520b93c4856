package dev.fencelock.http;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes the {@value FenceHeader#NAME} header of a caller: the fences its thread works under,
 * signed with the current key (or, by explicit choice, {@linkplain #unsigned unsigned}), valid for a
 * short while.
 *
 * <p>Only fences that fence writes travel (those of exclusive locks, and fences the thread itself
 * received over HTTP): a shared lock's or a permit's token would make its co-holders refuse each
 * other downstream. A fence whose lease this process already knows to be lost is refused here,
 * as the JDBC guard refuses it, before anything is sent.
 */
public final class FenceHeaderSigner {

    private final @Nullable FenceSigningKeys keys;

    private final String scope;

    private final Duration validity;

    private final Clock clock;

    /**
     * @param keys the keys, with a current one
     * @param scope the fence scope of this application's lock store ({@code fencelock.fencing.scope}),
     *     or {@code null} when it has none
     * @param validity how long a header stays valid after it was signed (at least one second)
     */
    public FenceHeaderSigner(FenceSigningKeys keys, @Nullable String scope, Duration validity, Clock clock) {
        this(validity, clock, scope, requireCurrentKey(keys));
    }

    private FenceHeaderSigner(Duration validity, Clock clock, @Nullable String scope, @Nullable FenceSigningKeys keys) {
        if (validity.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("A fence header must stay valid for at least 1s, not " + validity);
        }
        this.keys = keys;
        this.scope = (scope != null) ? scope : "";
        this.validity = validity;
        this.clock = clock;
    }

    /**
     * A writer of unsigned headers ({@code v=1; exp=…; scope=…; fences=…}), for calls to services
     * that trust this one by its client certificate ({@code fencelock.http.server.trust=mutual-tls}):
     * anyone who can reach such a service without a certificate it trusts is refused there.
     */
    public static FenceHeaderSigner unsigned(@Nullable String scope, Duration validity, Clock clock) {
        return new FenceHeaderSigner(validity, clock, scope, null);
    }

    private static FenceSigningKeys requireCurrentKey(FenceSigningKeys keys) {
        if (keys.currentKeyId() == null) {
            throw new IllegalArgumentException("Fence headers need a current signing key to be signed with");
        }
        return keys;
    }

    /** The header value for the current thread's fences, or {@code null} when it has none to send. */
    public @Nullable String headerForCurrentThread() {
        return header(FencingContext.all());
    }

    /**
     * The header value for {@code fences} (outermost first), or {@code null} when none of them
     * fences writes.
     *
     * @throws FencingTokenRejectedException when the lease behind one of them is known to be lost, or
     *     its store issues no fencing tokens
     */
    public @Nullable String header(List<Fence> fences) {
        // One token per resource, the innermost: a re-entered lock has the same token anyway.
        Map<String, Fence> sent = new LinkedHashMap<>();
        for (Fence fence : fences) {
            if (fence.fencesWrites()) {
                sent.remove(fence.resource());
                sent.put(fence.resource(), fence);
            }
        }
        if (sent.isEmpty()) {
            return null;
        }
        for (Fence fence : sent.values()) {
            if (!fence.isValid()) {
                throw new FencingTokenRejectedException(
                        fence.resource(),
                        fence.token(),
                        "Lock on '" + fence.resource() + "' is no longer held (lease lost, released or expired);"
                                + " refused to send its fencing token " + fence.token() + " to another service."
                                + " Acquire the lock again.",
                        FencingTokenRejectedException.RefusedBy.CLIENT);
            }
            if (!fence.fencing()) {
                // The receiver rebuilds fences without their leases, so it could not tell this one does not fence.
                throw FencingTokenRejectedException.notFencing(
                        fence.resource(), fence.token(), "refused to send it to another service");
            }
        }
        Instant expiry = this.clock.instant().plus(this.validity);
        long expiresAt = expiry.getEpochSecond() + ((expiry.getNano() > 0) ? 1 : 0);
        List<Fence> fenced = new ArrayList<>(sent.values());
        FenceSigningKeys keys = this.keys;
        String currentKeyId = (keys != null) ? keys.currentKeyId() : null;
        if (keys == null || currentKeyId == null) {
            return FenceHeader.unsigned(expiresAt, this.scope, fenced);
        }
        String signedPart = FenceHeader.signedPart(currentKeyId, expiresAt, this.scope, fenced);
        return FenceHeader.withSignature(signedPart, keys.sign(signedPart));
    }
}
