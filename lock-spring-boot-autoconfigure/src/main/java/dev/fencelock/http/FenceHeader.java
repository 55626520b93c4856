package dev.fencelock.http;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.ResourceName;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@value #NAME} header: the fences a caller works under, the scope of the lock store that
 * issued their tokens, an expiry and an HMAC-SHA256 signature, in one line.
 *
 * <pre>
 * FenceLock-Fence: v=1; kid=k2; exp=1767225600; scope=ZXRjZC1h; fences=b3JkZXI6NDI:1043,c3RvY2s6QS0x:1044; sig=…
 * </pre>
 *
 * <ul>
 *   <li>{@code kid}: the id of the signing key ({@code [A-Za-z0-9._-]}, at most 64 characters);
 *   <li>{@code exp}: the expiry, in seconds since the epoch (UTC);
 *   <li>{@code scope}: the fence scope, UTF-8 in unpadded Base64url; empty for an unscoped store;
 *   <li>{@code fences}: comma-separated {@code resource:token} pairs, the resource UTF-8 in
 *       unpadded Base64url (names may hold any printable character), the token in decimal;
 *   <li>{@code sig}: HMAC-SHA256 with the key {@code kid}, over the header's ASCII bytes up to
 *       (not including) {@code "; sig="}, in unpadded Base64url.
 * </ul>
 *
 * <p>The fields come in exactly this order, separated by {@code "; "}: what is signed is what is
 * read, with no canonical form to agree on.
 *
 * <p>Where a service trusts its callers by mutual TLS instead, the header may come unsigned: the same
 * fields without {@code kid} and {@code sig} ({@code v=1; exp=…; scope=…; fences=…}).
 */
public final class FenceHeader {

    /** The header's name. */
    public static final String NAME = "FenceLock-Fence";

    /** The most fences one header may carry. */
    static final int MAX_FENCES = 64;

    /** Longer values are refused before anything is decoded. */
    static final int MAX_LENGTH = 16 * 1024;

    private static final String VERSION = "v=1";

    private static final String SIGNATURE = "; sig=";

    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private FenceHeader() {}

    /**
     * A header value as it arrived: read, not yet trusted. {@code signedPart} is the text the
     * signature covers.
     */
    public record Parsed(
            @Nullable String keyId,
            long expiresAt,
            String scope,
            List<Fence> fences,
            String signedPart,
            byte @Nullable [] signature) {

        /** Whether the header carries a signature (and the id of its key). */
        public boolean signed() {
            return this.signature != null;
        }
    }

    /** Whether {@code keyId} may name a signing key. */
    public static boolean isValidKeyId(String keyId) {
        return KEY_ID.matcher(keyId).matches();
    }

    /** The part of the header that the signature covers. */
    static String signedPart(String keyId, long expiresAt, String scope, List<Fence> fences) {
        return fields(keyId, expiresAt, scope, fences);
    }

    /** An unsigned header: the fields of a signed one without {@code kid} and {@code sig}. */
    static String unsigned(long expiresAt, String scope, List<Fence> fences) {
        return fields(null, expiresAt, scope, fences);
    }

    private static String fields(@Nullable String keyId, long expiresAt, String scope, List<Fence> fences) {
        StringBuilder value = new StringBuilder(64 + 32 * fences.size()).append(VERSION);
        if (keyId != null) {
            value.append("; kid=").append(keyId);
        }
        value.append("; exp=")
                .append(expiresAt)
                .append("; scope=")
                .append(encode(scope))
                .append("; fences=");
        for (int i = 0; i < fences.size(); i++) {
            Fence fence = fences.get(i);
            value.append((i > 0) ? "," : "")
                    .append(encode(fence.resource()))
                    .append(':')
                    .append(fence.token());
        }
        return value.toString();
    }

    /** The whole header value: the signed part and its signature. */
    static String withSignature(String signedPart, byte[] signature) {
        return signedPart + SIGNATURE + ENCODER.encodeToString(signature);
    }

    /**
     * Reads a signed {@code value}, checking its form only.
     *
     * @throws FenceHeaderRefusedException {@link FenceRefusalReason#UNSIGNED} for a header without
     *     a signature, {@link FenceRefusalReason#MALFORMED} for one that cannot be read
     */
    public static Parsed parse(String value) {
        return parse(value, false);
    }

    /**
     * Reads {@code value}, checking its form only.
     *
     * @param readUnsigned whether an unsigned header ({@code v=1; exp=…; scope=…; fences=…}) is read
     *     rather than refused, for a receiver that trusts its callers by mutual TLS
     * @throws FenceHeaderRefusedException {@link FenceRefusalReason#UNSIGNED} for a header without
     *     a signature unless {@code readUnsigned}, {@link FenceRefusalReason#MALFORMED} for one that
     *     cannot be read
     */
    public static Parsed parse(String value, boolean readUnsigned) {
        if (value.length() > MAX_LENGTH) {
            throw malformed("it is longer than " + MAX_LENGTH + " characters");
        }
        if (!value.startsWith(VERSION + ";")) {
            throw malformed("it does not start with '" + VERSION + ";' (the only version there is)");
        }
        int signatureAt = value.lastIndexOf(SIGNATURE);
        if (signatureAt < 0 && readUnsigned) {
            return parseUnsigned(value);
        }
        if (signatureAt < 0) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.UNSIGNED,
                    "The " + NAME + " header carries no signature (sig=): tokens that anyone could have written"
                            + " are not accepted. Sign it with a key both services share"
                            + " (fencelock.http.signing.keys), or have this service trust callers by their client"
                            + " certificates (fencelock.http.server.trust=mutual-tls).");
        }
        String signedPart = value.substring(0, signatureAt);
        byte[] signature = decode(value.substring(signatureAt + SIGNATURE.length()), "sig");
        String[] fields = signedPart.split("; ", -1);
        if (fields.length != 5
                || !fields[1].startsWith("kid=")
                || !fields[2].startsWith("exp=")
                || !fields[3].startsWith("scope=")
                || !fields[4].startsWith("fences=")) {
            throw malformed("its fields are not v, kid, exp, scope, fences and sig, in this order");
        }
        String keyId = fields[1].substring(4);
        if (!isValidKeyId(keyId)) {
            throw malformed("kid is not 1 to 64 of [A-Za-z0-9._-]");
        }
        String expiresAt = fields[2].substring(4);
        if (!DIGITS.matcher(expiresAt).matches()) {
            throw malformed("exp is not a number of seconds");
        }
        String scope = text(fields[3].substring(6), "scope");
        return new Parsed(
                keyId, Long.parseLong(expiresAt), scope, fences(fields[4].substring(7)), signedPart, signature);
    }

    private static Parsed parseUnsigned(String value) {
        String[] fields = value.split("; ", -1);
        if (fields.length == 5 && fields[1].startsWith("kid=")) {
            throw malformed("it names a signing key (kid) but carries no signature (sig)");
        }
        if (fields.length != 4
                || !fields[1].startsWith("exp=")
                || !fields[2].startsWith("scope=")
                || !fields[3].startsWith("fences=")) {
            throw malformed("its fields are not v, exp, scope and fences, in this order (an unsigned header)");
        }
        String expiresAt = fields[1].substring(4);
        if (!DIGITS.matcher(expiresAt).matches()) {
            throw malformed("exp is not a number of seconds");
        }
        String scope = text(fields[2].substring(6), "scope");
        return new Parsed(null, Long.parseLong(expiresAt), scope, fences(fields[3].substring(7)), value, null);
    }

    private static List<Fence> fences(String field) {
        String[] pairs = field.split(",", -1);
        if (field.isEmpty() || pairs.length > MAX_FENCES) {
            throw malformed("it must carry 1 to " + MAX_FENCES + " fences");
        }
        List<Fence> fences = new ArrayList<>(pairs.length);
        for (String pair : pairs) {
            int colon = pair.indexOf(':');
            String token = (colon > 0) ? pair.substring(colon + 1) : "";
            if (!DIGITS.matcher(token).matches()) {
                throw malformed("a fence is not resource:token");
            }
            String resource = text(pair.substring(0, colon), "a fence's resource");
            try {
                if (!ResourceName.of(resource, Integer.MAX_VALUE).value().equals(resource)) {
                    throw malformed("a fence's resource is not in Unicode NFC, as lock resources are");
                }
            } catch (InvalidLockKeyException ex) {
                throw malformed("a fence's resource is not a lock resource name: " + ex.getMessage());
            }
            long value = Long.parseLong(token);
            if (value < 1) {
                throw malformed("a fence's token is not 1 or more");
            }
            fences.add(new Fence(resource, value, null));
        }
        return fences;
    }

    private static String encode(String text) {
        return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] decode(String base64, String what) {
        try {
            return Base64.getUrlDecoder().decode(base64);
        } catch (IllegalArgumentException ex) {
            throw malformed(what + " is not Base64url");
        }
    }

    private static String text(String base64, String what) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(decode(base64, what)))
                    .toString();
        } catch (CharacterCodingException ex) {
            throw malformed(what + " is not UTF-8");
        }
    }

    private static FenceHeaderRefusedException malformed(String what) {
        return new FenceHeaderRefusedException(
                FenceRefusalReason.MALFORMED, "The " + NAME + " header cannot be read: " + what + ".");
    }
}
