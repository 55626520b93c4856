package dev.fencelock.http;

import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.security.auth.x500.X500Principal;
import org.jspecify.annotations.Nullable;

/**
 * Trust in unsigned fence headers from callers that the TLS layer authenticated: a request that
 * came with a client certificate which the server's trust store verified, optionally only from the
 * certificate subjects listed.
 *
 * <p>The certificate is verified by the server's TLS set-up (its trust store and {@code
 * client-auth}), never here: this class only reads who it names. A request without one, over plain
 * HTTP or where the client authentication was optional and not given, is not trusted.
 */
public final class MutualTlsTrust {

    private final Set<X500Principal> subjects;

    /**
     * @param trustedSubjects distinguished names of the client certificates whose unsigned headers
     *     are trusted (compared as X.500 names, so spacing and case of attribute names do not matter);
     *     empty to trust every client certificate the server's trust store verified
     * @throws IllegalArgumentException naming a subject that is not a distinguished name
     */
    public MutualTlsTrust(Collection<String> trustedSubjects) {
        Set<X500Principal> subjects = new LinkedHashSet<>();
        for (String subject : trustedSubjects) {
            try {
                subjects.add(new X500Principal(subject));
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(
                        "Trusted subject '" + subject + "' is not a distinguished name (such as CN=orders,O=Example)",
                        ex);
            }
        }
        this.subjects = Set.copyOf(subjects);
    }

    /**
     * The subject of the caller's certificate, when it is trusted.
     *
     * @param chain the client's verified certificate chain, its own certificate first; {@code null}
     *     or empty for a request without one
     * @throws FenceHeaderRefusedException {@link FenceRefusalReason#UNTRUSTED_CALLER} for a request
     *     without a client certificate, or with one whose subject is not listed
     */
    public String subjectOf(X509Certificate @Nullable [] chain) {
        if (chain == null || chain.length == 0) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.UNTRUSTED_CALLER,
                    "The " + FenceHeader.NAME + " header is not signed, and the request came without a verified"
                            + " client certificate: this service takes unsigned fences only from callers that"
                            + " authenticate by mutual TLS. Call it over TLS with a client certificate its trust store"
                            + " accepts, or sign the header with a key both services share.");
        }
        X500Principal subject = chain[0].getSubjectX500Principal();
        String name = subject.getName(X500Principal.RFC2253);
        if (!this.subjects.isEmpty() && !this.subjects.contains(subject)) {
            throw new FenceHeaderRefusedException(
                    FenceRefusalReason.UNTRUSTED_CALLER,
                    "The " + FenceHeader.NAME + " header is not signed, and the client certificate's subject '" + name
                            + "' is not one of fencelock.http.server.trusted-subjects: add it there if this caller"
                            + " may send fences.");
        }
        return name;
    }

    /** The subjects trusted; empty when every verified client certificate is. */
    public Set<X500Principal> trustedSubjects() {
        return this.subjects;
    }

    @Override
    public String toString() {
        return "MutualTlsTrust[subjects=" + (this.subjects.isEmpty() ? "any verified" : this.subjects) + "]";
    }
}
