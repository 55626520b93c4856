package dev.fencelock.etcd;

import dev.fencelock.LockMode;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.LockKind;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Maps resources to etcd keys: {@code <namespace>/locks/<encoded resource>/<encoded request id>}.
 *
 * <p>The encoding keeps only {@code A-Z a-z 0-9 - . _ ~} and percent-encodes every other UTF-8
 * byte, {@code /} and {@code %} included. So an encoded resource never contains {@code /}, and
 * the prefix of one resource ({@code .../a/}) can never be a prefix of another's ({@code
 * .../a%2Fb/}): a range read or watch over one resource sees no key of another.
 *
 * <p>The last part of a key says what the key asks for, so every client reads the queue's kinds
 * from the keys alone (a keys-only range read sorted by create revision shows the queue with its
 * modes): an exclusive key is the bare encoded request id, as it always was; a shared key is
 * {@code !shared:<id>}; a key of a semaphore of {@code n} permits is {@code #permits-<n>:<id>}.
 * {@code !}, {@code #} and {@code :} never occur in an encoded id, so the forms cannot be confused,
 * and shared keys sort before every other key of the resource ({@code !} is below {@code "} and
 * every other first character): one range read of the resource's non-shared keys, from {@code
 * <prefix>"} to the prefix's end, finds the writers and permits a reader waits for.
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

    String key(ResourceName resource, String requestId, LockKind kind) {
        return resourcePrefix(resource) + lastPart(requestId, kind);
    }

    /**
     * The first key of the range that holds every non-shared key (writers, permits) of the resource
     * with prefix {@code resourcePrefix}; the range ends where the prefix does ({@link #prefixEnd}).
     */
    static String nonSharedStart(String resourcePrefix) {
        return resourcePrefix + '"';
    }

    /** The first key after every key that starts with {@code resourcePrefix}, which ends with {@code /}. */
    static String prefixEnd(String resourcePrefix) {
        return resourcePrefix.substring(0, resourcePrefix.length() - 1) + (char) ('/' + 1);
    }

    /**
     * Marks a request of {@code resource} that the session with lease {@code leaseId} abandoned.
     * While it exists, a put of that request's key by that session that arrives late (its response
     * was lost, the request was delayed) is refused. It names the session because only that
     * session's put is in doubt: another client using the same request id (holding it, or asking
     * for it) is told what its own put finds. It lies outside the resource's prefix, so waiters
     * never see it.
     */
    String abandonedMarker(ResourceName resource, String requestId, LockKind kind, long leaseId) {
        return this.namespace + "/abandoned/" + encode(resource.value()) + '/' + Long.toHexString(leaseId) + '/'
                + lastPart(requestId, kind);
    }

    private static String lastPart(String requestId, LockKind kind) {
        if (kind.isSemaphore()) {
            return "#permits-" + kind.permits() + ':' + encode(requestId);
        }
        return (kind.mode() == LockMode.SHARED) ? "!shared:" + encode(requestId) : encode(requestId);
    }

    /** The request id part of a lock key. */
    static String requestIdOf(String key) {
        String last = key.substring(key.lastIndexOf('/') + 1);
        return decode(isMarked(last) ? last.substring(last.indexOf(':') + 1) : last);
    }

    /**
     * What a lock key asks for, read from its last part. A marked part this version cannot read
     * counts as exclusive: every other key then waits for it, which is never unsafe.
     */
    static LockKind kindOf(String key) {
        String last = key.substring(key.lastIndexOf('/') + 1);
        if (last.startsWith("!shared:")) {
            return LockKind.SHARED;
        }
        int colon = last.indexOf(':');
        if (last.startsWith("#permits-") && colon > 0) {
            try {
                int permits = Integer.parseInt(last.substring("#permits-".length(), colon));
                if (permits > 1) {
                    return LockKind.permits(permits);
                }
            } catch (NumberFormatException ex) {
                // not a key this version wrote
            }
        }
        return LockKind.EXCLUSIVE;
    }

    private static boolean isMarked(String last) {
        return !last.isEmpty() && (last.charAt(0) == '!' || last.charAt(0) == '#') && last.indexOf(':') > 0;
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
