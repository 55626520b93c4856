package dev.fencelock.zookeeper;

import dev.fencelock.LockMode;
import dev.fencelock.spi.LockKind;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Where a backend's nodes live and what their names say.
 *
 * <p>Each resource has one node, {@code <namespace>/locks/<resource>}, a container that ZooKeeper
 * deletes once it is empty; each acquisition one ephemeral sequential node below it, named {@code
 * <kind>.<request id>.<nonce>.<sequence>}. The nonce, 16 random hex digits per attempt, keeps
 * names unique where the sequence alone does not: a deleted container's sequence numbers start
 * again when it is created anew, and a release or an abandon sent again after a lost answer
 * deletes its node by name, which must then not be a later acquisition's with the same request id.
 * A resource name or request id is written with every character
 * outside {@code [A-Za-z0-9_:-]} as {@code %XX} of its UTF-8 bytes, so no name nests in another,
 * none is {@code .} or {@code ..}, and the dots only separate. The kind is {@code x} (exclusive),
 * {@code r} (shared) or {@code s<n>} (one of a semaphore's {@code n} permits).
 */
final class ZooKeeperPaths {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final String namespace;

    ZooKeeperPaths(String namespace) {
        this.namespace = namespace;
    }

    String namespace() {
        return this.namespace;
    }

    /** The parent of every resource's node. */
    String locks() {
        return this.namespace + "/locks";
    }

    /** {@code resource}'s node. */
    String resource(String resource) {
        return locks() + "/" + encode(resource);
    }

    /** The name an attempt's node starts with; ZooKeeper appends the sequence number. */
    static String prefix(LockKind kind, String requestId, String nonce) {
        return kindCode(kind) + "." + encode(requestId) + "." + nonce + ".";
    }

    /** A new attempt's nonce: 16 hex digits. */
    static String nonce() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    static String kindCode(LockKind kind) {
        if (kind.isSemaphore()) {
            return "s" + kind.permits();
        }
        return (kind.mode() == LockMode.SHARED) ? "r" : "x";
    }

    /** One child of a resource's node, as its name says; {@code null} for a name no backend writes. */
    static @Nullable Child child(String name) {
        int first = name.indexOf('.');
        int last = name.lastIndexOf('.');
        int nonce = (last > 0) ? name.lastIndexOf('.', last - 1) : -1;
        if (first <= 0 || nonce <= first) {
            return null;
        }
        try {
            LockKind kind = kindOf(name.substring(0, first));
            long sequence = Long.parseLong(name.substring(last + 1));
            return new Child(name, kind, decode(name.substring(first + 1, nonce)), sequence);
        } catch (IllegalArgumentException ex) {
            return null;
        }
    }

    /** The children a backend wrote, oldest first. */
    static List<Child> queue(List<String> names) {
        List<Child> children = new ArrayList<>(names.size());
        for (String name : names) {
            Child child = child(name);
            if (child != null) {
                children.add(child);
            }
        }
        children.sort(Comparator.comparingLong(Child::sequence));
        return children;
    }

    private static LockKind kindOf(String code) {
        return switch (code.charAt(0)) {
            case 'x' -> LockKind.EXCLUSIVE;
            case 'r' -> LockKind.SHARED;
            case 's' -> LockKind.permits(Integer.parseInt(code.substring(1)));
            default -> throw new IllegalArgumentException("Not a kind: " + code);
        };
    }

    static String encode(String value) {
        StringBuilder encoded = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == ':'
                    || c == '-') {
                encoded.append(c);
            } else {
                encoded.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return encoded.toString();
    }

    static String decode(String encoded) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                if (i + 2 >= encoded.length()) {
                    throw new IllegalArgumentException("Truncated escape in " + encoded);
                }
                bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * One acquisition's node.
     *
     * @param name the node's name below its resource's node
     * @param kind what it asks for
     * @param requestId the acquisition's request id
     * @param sequence the number ZooKeeper appended: the queue's order
     */
    record Child(String name, LockKind kind, String requestId, long sequence) {}
}
