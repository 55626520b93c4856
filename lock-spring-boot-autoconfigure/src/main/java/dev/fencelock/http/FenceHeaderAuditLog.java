package dev.fencelock.http;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.audit.LockAuditLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the fences that arrive over HTTP to the audit logger ({@value LockAuditLog#LOGGER_NAME}),
 * one {@code key=value} line each, naming the caller and the tokens: an accepted header at DEBUG
 * (one per fenced request, like an acquisition), a refused header and a write the database
 * refused at INFO. Never the header itself, nor its signature. An unsigned header accepted for its
 * caller's client certificate is logged with {@code keyId=-} and the certificate's {@code clientSubject}.
 */
public final class FenceHeaderAuditLog implements FenceHeaderListener {

    private static final Logger audit = LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);

    @Override
    public void accepted(FenceCaller caller, String method, String path, FenceHeaderVerifier.Verified header) {
        if (audit.isDebugEnabled()) {
            String clientSubject = header.clientSubject();
            audit.debug(
                    "event=http-fence outcome=accepted fences=\"{}\" scope=\"{}\" keyId={}{} caller=\"{}\""
                            + " remote=\"{}\" request=\"{} {}\"",
                    quoteSafe(fences(header.fences())),
                    quoteSafe(header.scope()),
                    (header.keyId() != null) ? header.keyId() : "-",
                    // An unsigned header was trusted for its caller's certificate: name it.
                    (clientSubject != null) ? " clientSubject=\"" + quoteSafe(clientSubject) + "\"" : "",
                    quoteSafe(caller.name()),
                    quoteSafe(caller.address()),
                    method,
                    quoteSafe(path));
        }
    }

    @Override
    public void refused(FenceCaller caller, String method, String path, FenceHeaderRefusedException refusal) {
        if (audit.isInfoEnabled()) {
            audit.info(
                    "event=http-fence outcome=refused reason={} caller=\"{}\" remote=\"{}\" request=\"{} {}\"",
                    refusal.reason().tag(),
                    quoteSafe(caller.name()),
                    quoteSafe(caller.address()),
                    method,
                    quoteSafe(path));
        }
    }

    @Override
    public void rejected(FenceCaller caller, String method, String path, FencingTokenRejectedException rejection) {
        if (audit.isInfoEnabled()) {
            audit.info(
                    "event=http-fence outcome=rejected resource=\"{}\" token={} acceptedToken={} refusedBy={}"
                            + " caller=\"{}\" remote=\"{}\" request=\"{} {}\"",
                    quoteSafe(rejection.getResource()),
                    rejection.getToken(),
                    rejection.getAcceptedToken().isPresent()
                            ? String.valueOf(rejection.getAcceptedToken().getAsLong())
                            : "-",
                    rejection.refusedBy(),
                    quoteSafe(caller.name()),
                    quoteSafe(caller.address()),
                    method,
                    quoteSafe(path));
        }
    }

    /** One event, one line: resource names and paths are not checked for quotes and line breaks. */
    static String quoteSafe(String value) {
        StringBuilder out = new StringBuilder(value.length());
        value.codePoints().forEach(cp -> {
            switch (cp) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                default -> {
                    if (Character.isISOControl(cp)) {
                        out.append(String.format("\\u%04X", cp));
                    } else {
                        out.appendCodePoint(cp);
                    }
                }
            }
        });
        return out.toString();
    }

    static String fences(Iterable<Fence> fences) {
        StringBuilder out = new StringBuilder();
        fences.forEach(fence -> out.append((out.length() > 0) ? "," : "")
                .append(fence.resource())
                .append('@')
                .append(fence.token()));
        return out.toString();
    }
}
