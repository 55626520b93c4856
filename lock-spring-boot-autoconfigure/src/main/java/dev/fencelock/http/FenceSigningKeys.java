package dev.fencelock.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The HMAC-SHA256 keys that sign and check fence headers, by key id, and the id of the one that
 * signs. A receiver accepts a header signed with any of its keys, so keys rotate without a
 * refused request: add the new key everywhere, then sign with it, then remove the old one once
 * every header signed with it has expired.
 *
 * <p>{@link #toString()} names the key ids only; the secrets never leave this object.
 */
public final class FenceSigningKeys {

    /** Shorter secrets are refused: HMAC-SHA256 is as strong as its key, up to 32 bytes. */
    public static final int MIN_KEY_BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";

    private final Map<String, SecretKeySpec> keys;

    private final @Nullable String currentKeyId;

    /**
     * @param keys the secrets by key id
     * @param currentKeyId the id of the key that signs, or {@code null} where this application
     *     only checks headers
     * @throws IllegalArgumentException naming the key id (never the secret) of a key that is too
     *     short, a key id that is not valid, or a current key id that names no key
     */
    public FenceSigningKeys(Map<String, byte[]> keys, @Nullable String currentKeyId) {
        Map<String, SecretKeySpec> specs = new LinkedHashMap<>();
        keys.forEach((id, secret) -> {
            if (!FenceHeader.isValidKeyId(id)) {
                throw new IllegalArgumentException(
                        "Signing key id '" + id + "' is not 1 to 64 of the characters [A-Za-z0-9._-]");
            }
            if (secret.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("Signing key '" + id + "' has " + secret.length + " bytes; at least "
                        + MIN_KEY_BYTES + " are needed (for example: openssl rand -base64 32)");
            }
            specs.put(id, new SecretKeySpec(secret, ALGORITHM));
        });
        if (currentKeyId != null && !specs.containsKey(currentKeyId)) {
            throw new IllegalArgumentException(
                    "The current signing key '" + currentKeyId + "' is not one of the keys " + specs.keySet());
        }
        this.keys = Collections.unmodifiableMap(specs);
        this.currentKeyId = currentKeyId;
    }

    /** No keys: every signed header is refused, and nothing can be signed. */
    public static FenceSigningKeys none() {
        return new FenceSigningKeys(Map.of(), null);
    }

    /** The ids of the keys that headers may be signed with. */
    public Set<String> keyIds() {
        return this.keys.keySet();
    }

    /** The id of the key that signs, if this application signs. */
    public @Nullable String currentKeyId() {
        return this.currentKeyId;
    }

    /** Signs {@code signedPart} with the current key. */
    byte[] sign(String signedPart) {
        if (this.currentKeyId == null) {
            throw new IllegalStateException("No current signing key (fencelock.http.signing.current-key)");
        }
        return mac(this.keys.get(this.currentKeyId), signedPart);
    }

    /**
     * Checks {@code signature} over {@code signedPart} with the key {@code keyId}.
     *
     * @throws FenceHeaderRefusedException {@link FenceRefusalReason#UNKNOWN_KEY} or {@link
     *     FenceRefusalReason#FORGED}
     */
    void verify(String keyId, String signedPart, byte[] signature) {
        SecretKeySpec key = this.keys.get(keyId);
        if (key == null) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.UNKNOWN_KEY,
                    "The " + FenceHeader.NAME + " header is signed with key '" + keyId + "', which this service"
                            + " does not have (its keys: " + keyIds() + "). Add the key to"
                            + " fencelock.http.signing.keys before any caller signs with it.");
        }
        // Constant time, so that a forger cannot learn the signature byte by byte.
        if (!MessageDigest.isEqual(mac(key, signedPart), signature)) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.FORGED,
                    "The signature of the " + FenceHeader.NAME + " header does not match its content (key '" + keyId
                            + "'): it was forged or altered on the way.");
        }
    }

    private static byte[] mac(SecretKeySpec key, String signedPart) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(signedPart.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HMAC-SHA256 is not available", ex);
        }
    }

    @Override
    public String toString() {
        return "FenceSigningKeys[keys=" + keyIds() + ", current=" + this.currentKeyId + "]";
    }
}
