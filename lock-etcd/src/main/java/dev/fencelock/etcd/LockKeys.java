package dev.fencelock.etcd;

import dev.fencelock.ResourceName;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Maps resources to etcd keys: {@code <namespace>/locks/<encoded resource>/<encoded request id>}.
 *
 * <p>The encoding keeps only {@code A-Z a-z 0-9 - . _ ~} and percent-encodes every other UTF-8
 * byte, {@code /} and {@code %} included. So an encoded resource never contains {@code /}, and
 * the prefix of one resource ({@code .../a/}) can never be a prefix of another's ({@code
 * .../a%2Fb/}): a range read or watch over one resource sees no key of another.
 */
final class LockKeys {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final String namespace;

    LockKeys(String namespace) {
        this.namespace = validateNamespace(namespace);
    }

    static String validateNamespace(String namespace) {
        if (namespace == null
                || namespace.length() < 2
                || namespace.charAt(0) != '/'
                || namespace.endsWith("/")
                || !namespace.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("etcd namespace '" + namespace
                    + "' must start with '/', not end with '/', and use printable ASCII only (e.g. /fencelock)");
        }
        return namespace;
    }

    String namespace() {
        return this.namespace;
    }

    /** All lock keys of this namespace start with this. */
    String locksPrefix() {
        return this.namespace + "/locks/";
    }

    /** All keys of {@code resource} (holder and waiters) start with this; no other resource's do. */
    String resourcePrefix(ResourceName resource) {
        return locksPrefix() + encode(resource.value()) + '/';
    }

    String key(ResourceName resource, String requestId) {
        return resourcePrefix(resource) + encode(requestId);
    }

    /**
     * Marks an abandoned request id of {@code resource}. While it exists, a put of that request's
     * key that arrives late (its response was lost, the request was delayed) is refused. It lies
     * outside the resource's prefix, so waiters never see it.
     */
    String abandonedMarker(ResourceName resource, String requestId) {
        return this.namespace + "/abandoned/" + encode(resource.value()) + '/' + encode(requestId);
    }

    /** The request id part of a key of {@code resource}. */
    String requestIdOf(String key) {
        return decode(key.substring(key.lastIndexOf('/') + 1));
    }

    static String encode(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    static String decode(String encoded) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%' && i + 2 < encoded.length()) {
                bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
