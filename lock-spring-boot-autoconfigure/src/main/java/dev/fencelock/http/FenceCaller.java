package dev.fencelock.http;

import java.security.cert.X509Certificate;
import javax.security.auth.x500.X500Principal;
import org.jspecify.annotations.Nullable;

/**
 * Who sent a fenced request, as far as this service knows: the principal the application
 * authenticated, if any, the subject of the client certificate the TLS layer verified, if any, and
 * the remote address.
 */
public record FenceCaller(
        @Nullable String principal, @Nullable String clientSubject, String address) {

    public FenceCaller(@Nullable String principal, String address) {
        this(principal, null, address);
    }

    /** The caller, with the subject of the first certificate of {@code chain}, if there is one. */
    static FenceCaller of(@Nullable String principal, X509Certificate @Nullable [] chain, String address) {
        String subject = (chain != null && chain.length > 0)
                ? chain[0].getSubjectX500Principal().getName(X500Principal.RFC2253)
                : null;
        return new FenceCaller(principal, subject, address);
    }

    /**
     * The principal's name, else the client certificate's subject, else the address for a caller
     * the application did not authenticate.
     */
    public String name() {
        if (this.principal != null) {
            return this.principal;
        }
        return (this.clientSubject != null) ? this.clientSubject : this.address;
    }
}
