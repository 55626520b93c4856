package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Turns on etcd's authentication through the grpc-gateway, the way {@code etcdctl user add}, {@code role add},
 * {@code role grant-permission --prefix}, {@code user grant-role} and {@code auth enable} do. Everything is set up
 * before authentication is enabled, so no token is needed for it.
 */
final class EtcdAuthSetup {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final EtcdMember member;

    EtcdAuthSetup(EtcdMember member) {
        this.member = member;
    }

    void enable(String rootPassword, List<EtcdUser> users) {
        call("/v3/auth/user/add", "{\"name\":\"root\",\"password\":" + quote(rootPassword) + "}");
        call("/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}");
        for (EtcdUser user : users) {
            call("/v3/auth/role/add", "{\"name\":" + quote(user.name()) + "}");
            for (String prefix : user.prefixes()) {
                call(
                        "/v3/auth/role/grant",
                        "{\"name\":" + quote(user.name()) + ",\"perm\":{\"permType\":\"READWRITE\",\"key\":"
                                + quote(base64(prefix.getBytes(StandardCharsets.UTF_8))) + ",\"range_end\":"
                                + quote(base64(prefixEnd(prefix))) + "}}");
            }
            call(
                    "/v3/auth/user/add",
                    "{\"name\":" + quote(user.name()) + ",\"password\":" + quote(user.password()) + "}");
            call("/v3/auth/user/grant", "{\"user\":" + quote(user.name()) + ",\"role\":" + quote(user.name()) + "}");
        }
        call("/v3/auth/enable", "{}");
    }

    /** The end of a prefix range as etcdctl computes it: the prefix with its last byte below 0xff incremented. */
    static byte[] prefixEnd(String prefix) {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return new byte[] {0}; // every key
    }

    private void call(String path, String json) {
        try {
            member.gateway(path, json, TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException("etcd refused " + path + " while enabling authentication", e);
        }
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
