package dev.fencelock.http;

import dev.fencelock.FencingTokenRejectedException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The RFC 9457 problem details ({@code application/problem+json}) of fenced endpoints, written by
 * hand: refusals are answered before any handler runs, where no message converter is at hand. Spring
 * MVC and WebFlux answer with the same problems.
 */
final class FenceProblems {

    /** The problem types' common prefix, shared with the sample application's. */
    static final String TYPES = "https://fencelock.dev/problems/";

    static final String CONTENT_TYPE = "application/problem+json";

    private FenceProblems() {}

    /** A problem; {@code properties} hold strings and numbers only. */
    record Problem(int status, String type, String title, String detail, Map<String, Object> properties) {

        String json() {
            StringBuilder json = new StringBuilder(256)
                    .append("{\"type\":")
                    .append(quote(TYPES + this.type))
                    .append(",\"title\":")
                    .append(quote(this.title))
                    .append(",\"status\":")
                    .append(this.status)
                    .append(",\"detail\":")
                    .append(quote(this.detail));
            this.properties.forEach((name, value) -> json.append(',')
                    .append(quote(name))
                    .append(':')
                    .append((value instanceof Number) ? value.toString() : quote(String.valueOf(value))));
            return json.append('}').toString();
        }

        byte[] bytes() {
            return json().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The answer to a request refused before it ran: 428 {@code fence-required}, or {@code fence-refused}. */
    static Problem refused(FenceHeaderRefusedException refusal) {
        FenceRefusalReason reason = refusal.reason();
        boolean missing = reason == FenceRefusalReason.MISSING;
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("reason", reason.tag());
        return new Problem(
                reason.status(),
                missing ? "fence-required" : "fence-refused",
                missing ? "Fence required" : "Fence header refused",
                String.valueOf(refusal.getMessage()),
                properties);
    }

    /** The 409 of a write that the database refused: the resource, the caller's token, the newer one, and who refused. */
    static Problem stale(FencingTokenRejectedException rejection) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("resource", rejection.getResource());
        properties.put("fencingToken", rejection.getToken());
        rejection.getAcceptedToken().ifPresent(accepted -> properties.put("acceptedToken", accepted));
        // The same two properties as the starter's problem details for a stale write: who, then which check.
        FencingTokenRejectedException.RefusedBy refusedBy = rejection.refusedBy();
        properties.put(
                "refusedBy", (refusedBy == FencingTokenRejectedException.RefusedBy.CLIENT) ? "client" : "database");
        properties.put("refusedAt", refusedBy.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        return new Problem(
                409,
                "stale-fencing-token",
                "Stale fencing token: write refused",
                String.valueOf(rejection.getMessage()),
                properties);
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /**
     * The refusal in {@code failure}'s causes or suppressed exceptions (a lost lock carries the
     * method's refused write as a suppressed one), or {@code null}.
     */
    static @Nullable FencingTokenRejectedException rejection(@Nullable Throwable failure) {
        List<FencingTokenRejectedException> found = new ArrayList<>(2);
        collect(failure, Collections.newSetFromMap(new IdentityHashMap<>()), found);
        // An application's own exception may wrap the database's refusal and drop its accepted token.
        return found.stream()
                .filter(rejection -> rejection.getAcceptedToken().isPresent())
                .findFirst()
                .orElse(found.isEmpty() ? null : found.get(0));
    }

    private static void collect(
            @Nullable Throwable failure, Set<Throwable> seen, List<FencingTokenRejectedException> found) {
        if (failure == null || !seen.add(failure)) {
            return;
        }
        if (failure instanceof FencingTokenRejectedException rejection) {
            found.add(rejection);
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            collect(suppressed, seen, found);
        }
        collect(failure.getCause(), seen, found);
    }
}
