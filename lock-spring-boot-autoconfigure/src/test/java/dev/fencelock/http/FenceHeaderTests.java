package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.context.FencingContextAccessor;
import dev.fencelock.memory.InMemoryLockBackend;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FenceHeaderTests {

    static final byte[] SECRET_1 = "first shared secret, 32 bytes!!!".getBytes(StandardCharsets.US_ASCII);

    static final byte[] SECRET_2 = "second shared secret, 32 bytes!!".getBytes(StandardCharsets.US_ASCII);

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private static final Fence ORDER = new Fence("order:42", 1043, null);

    @Test
    void signedHeaderCarriesEveryFenceAndTheScopeToTheReceiver() {
        List<Fence> fences = List.of(ORDER, new Fence("stock; a,b:c=ü é", 1044, null));
        String header = signer(keys("k1", SECRET_1), "etcd-a").header(fences);

        FenceHeaderVerifier.Verified verified =
                verifier(keys(null, SECRET_1), "etcd-a").verify(header);

        assertThat(verified.fences()).containsExactlyElementsOf(fences);
        assertThat(verified.scope()).isEqualTo("etcd-a");
        assertThat(verified.keyId()).isEqualTo("k1");
        assertThat(header)
                .startsWith("v=1; kid=k1; exp=" + (NOW.getEpochSecond() + 30)
                        + "; scope=ZXRjZC1h; fences=b3JkZXI6NDI:1043,")
                .contains("; sig=");
    }

    @Test
    void headerWhoseTokenWasRaisedOnTheWayIsRefusedAsForged() {
        String header = signer(keys("k1", SECRET_1), "").header(List.of(ORDER));
        String raised = header.replace(":1043;", ":9999;");
        assertThat(raised).isNotEqualTo(header);

        assertRefused(raised, verifier(keys(null, SECRET_1), ""), FenceRefusalReason.FORGED);
    }

    @Test
    void headerSignedWithAnotherSecretUnderAKnownKeyIdIsRefusedAsForged() {
        String header = signer(keys("k1", SECRET_2), "").header(List.of(ORDER));

        assertRefused(header, verifier(keys(null, SECRET_1), ""), FenceRefusalReason.FORGED);
    }

    @Test
    void headerWithoutSignatureIsRefusedAsUnsigned() {
        String unsigned = "v=1; scope=; fences=b3JkZXI6NDI:1043";

        assertRefused(unsigned, verifier(keys(null, SECRET_1), ""), FenceRefusalReason.UNSIGNED);
    }

    @Test
    void headerPastItsExpiryAndTheClockSkewIsRefusedAsExpired() {
        String header = signer(keys("k1", SECRET_1), "").header(List.of(ORDER));
        FenceSigningKeys keys = keys(null, SECRET_1);

        // Signed for 30s; the receiver allows 5s of skew: accepted at +35s, refused from +36s.
        assertThat(verifierAt(keys, NOW.plusSeconds(35)).verify(header).fences())
                .containsExactly(ORDER);
        assertRefused(header, verifierAt(keys, NOW.plusSeconds(36)), FenceRefusalReason.EXPIRED);
    }

    @Test
    void receiverAcceptsEveryConfiguredKeySoKeysRotateWithoutARefusal() {
        Map<String, byte[]> both = new LinkedHashMap<>();
        both.put("k1", SECRET_1);
        both.put("k2", SECRET_2);
        FenceHeaderVerifier rotating = verifier(new FenceSigningKeys(both, null), "");
        String signedWithOld = signer(keys("k1", SECRET_1), "").header(List.of(ORDER));
        String signedWithNew = signer(new FenceSigningKeys(both, "k2"), "").header(List.of(ORDER));

        assertThat(signedWithNew).contains("kid=k2;");
        assertThat(rotating.verify(signedWithOld).fences()).containsExactly(ORDER);
        assertThat(rotating.verify(signedWithNew).fences()).containsExactly(ORDER);
        // A receiver that does not have the new key yet refuses, naming the key: add keys before signing with them.
        assertRefused(signedWithNew, verifier(keys(null, SECRET_1), ""), FenceRefusalReason.UNKNOWN_KEY);
    }

    @Test
    void fencesOfAnotherScopeAreRefusedUnlessTheScopeIsAccepted() {
        String header = signer(keys("k1", SECRET_1), "etcd-b").header(List.of(ORDER));

        assertRefused(header, verifier(keys(null, SECRET_1), "etcd-a"), FenceRefusalReason.SCOPE);
        assertRefused(header, verifier(keys(null, SECRET_1), ""), FenceRefusalReason.SCOPE);
        FenceHeaderVerifier accepting =
                new FenceHeaderVerifier(keys(null, SECRET_1), Set.of("etcd-a", "etcd-b"), Duration.ZERO, CLOCK);
        assertThat(accepting.verify(header).fences()).containsExactly(ORDER);
    }

    @Test
    void unreadableHeadersAreRefusedAsMalformed() {
        FenceHeaderVerifier verifier = verifier(keys(null, SECRET_1), "");
        String signature = "; sig=" + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
        for (String value : List.of(
                "",
                "order:42=1043",
                "v=2; kid=k1; exp=1; scope=; fences=b3JkZXI6NDI:1" + signature,
                "v=1; exp=1; kid=k1; scope=; fences=b3JkZXI6NDI:1" + signature,
                "v=1; kid=k 1; exp=1; scope=; fences=b3JkZXI6NDI:1" + signature,
                "v=1; kid=k1; exp=-1; scope=; fences=b3JkZXI6NDI:1" + signature,
                "v=1; kid=k1; exp=1; scope=; fences=" + signature,
                "v=1; kid=k1; exp=1; scope=; fences=b3JkZXI6NDI:0" + signature,
                "v=1; kid=k1; exp=1; scope=; fences=b3JkZXI6NDI" + signature,
                "v=1; kid=k1; exp=1; scope=; fences=b3JkZXI6NDI:1; sig=!!!")) {
            assertRefused(value, verifier, FenceRefusalReason.MALFORMED);
        }
    }

    @Test
    void signerSendsTheExclusiveFencesOnceEachAndNothingWithoutThem() {
        FenceHeaderSigner signer = signer(keys("k1", SECRET_1), "");
        try (LockClient client = LockClient.builder(new InMemoryLockBackend()).build();
                LockLease shared = client.acquire(
                        LockRequest.builder("catalog").mode(LockMode.SHARED).build());
                LockLease order = client.acquire(LockRequest.of("order:42"))) {
            assertThat(signer.headerForCurrentThread()).isNull();
            try (FencingContext.Scope outer = FencingContext.open(order);
                    FencingContext.Scope reader = FencingContext.open(shared);
                    FencingContext.Scope again = FencingContext.open(order)) {
                assertThat(verifier(keys(null, SECRET_1), "")
                                .verify(signer.headerForCurrentThread())
                                .fences())
                        .containsExactly(new Fence("order:42", order.fencingToken(), null));
            }
            try (FencingContext.Scope reader = FencingContext.open(shared)) {
                assertThat(signer.headerForCurrentThread()).isNull();
            }
        }
    }

    @Test
    void signerRefusesToSendAFenceFromAStoreWithoutFencingTokens() {
        FenceHeaderSigner signer = signer(keys("k1", SECRET_1), "");
        // The receiving service rebuilds fences without their leases: it could not tell this one does not fence.
        try (FencingContext.Scope scope = FencingContext.push(new Fence("order:42", 7, null, false))) {
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(signer::headerForCurrentThread)
                    .withMessageContaining("not a fencing token")
                    .withMessageContaining("another service");
        }
    }

    @Test
    void signerRefusesToSendAFenceWhoseLeaseIsKnownToBeLost() {
        FenceHeaderSigner signer = signer(keys("k1", SECRET_1), "");
        try (LockClient client = LockClient.builder(new InMemoryLockBackend()).build()) {
            LockLease order = client.acquire(LockRequest.of("order:42"));
            try (FencingContext.Scope scope = FencingContext.open(order)) {
                order.release();
                assertThatExceptionOfType(FencingTokenRejectedException.class)
                        .isThrownBy(signer::headerForCurrentThread)
                        .withMessageContaining("'order:42' is no longer held")
                        .satisfies(ex ->
                                assertThat(ex.refusedBy()).isEqualTo(FencingTokenRejectedException.RefusedBy.CLIENT));
            }
        }
    }

    @Test
    void signingKeysRefuseShortSecretsAndAnUnknownCurrentKeyAndNeverShowASecret() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new FenceSigningKeys(Map.of("k1", new byte[31]), null))
                .withMessageContaining("'k1' has 31 bytes");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new FenceSigningKeys(Map.of("k1", SECRET_1), "k2"))
                .withMessageContaining("'k2' is not one of the keys [k1]");
        assertThat(keys("k1", SECRET_1).toString())
                .isEqualTo("FenceSigningKeys[keys=[k1], current=k1]")
                .doesNotContain(new String(SECRET_1, StandardCharsets.US_ASCII));
    }

    @Test
    void exchangeFilterReadsTheReactorContextUnderTheContextPropagationKey() {
        assertThat(FenceHeaderExchangeFilter.CONTEXT_KEY).isEqualTo(FencingContextAccessor.KEY);
    }

    static FenceSigningKeys keys(String current, byte[] secret) {
        return new FenceSigningKeys(Map.of("k1", secret), current);
    }

    static FenceHeaderSigner signer(FenceSigningKeys keys, String scope) {
        return new FenceHeaderSigner(keys, scope, Duration.ofSeconds(30), CLOCK);
    }

    private static FenceHeaderVerifier verifier(FenceSigningKeys keys, String scope) {
        return new FenceHeaderVerifier(keys, Set.of(scope), Duration.ofSeconds(5), CLOCK);
    }

    private static FenceHeaderVerifier verifierAt(FenceSigningKeys keys, Instant now) {
        return new FenceHeaderVerifier(keys, Set.of(""), Duration.ofSeconds(5), Clock.fixed(now, ZoneOffset.UTC));
    }

    private static void assertRefused(String header, FenceHeaderVerifier verifier, FenceRefusalReason reason) {
        assertThatExceptionOfType(FenceHeaderRefusedException.class)
                .as(header)
                .isThrownBy(() -> verifier.verify(header))
                .satisfies(ex -> assertThat(ex.reason()).isEqualTo(reason));
    }
}
