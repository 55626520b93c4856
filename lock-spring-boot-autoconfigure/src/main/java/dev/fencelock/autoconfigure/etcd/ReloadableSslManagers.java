package dev.fencelock.autoconfigure.etcd;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.springframework.boot.ssl.SslBundle;

/**
 * The key and trust managers the etcd client's TLS context is built with, pointing at the current
 * SSL bundle's. jetcd fixes its TLS context when the client is built; with these in it, an updated
 * bundle takes effect at the next handshake, while connections already open, and the locks and
 * leases that live on them, carry on.
 */
final class ReloadableSslManagers {

    private volatile X509ExtendedKeyManager keyManager;

    private volatile X509ExtendedTrustManager trustManager;

    ReloadableSslManagers(SslBundle bundle) {
        this.keyManager = keyManagerOf(bundle);
        this.trustManager = trustManagerOf(bundle);
    }

    /** From now on, handshakes use {@code bundle}'s material. */
    void use(SslBundle bundle) {
        X509ExtendedKeyManager keys = keyManagerOf(bundle);
        X509ExtendedTrustManager trust = trustManagerOf(bundle);
        this.keyManager = keys;
        this.trustManager = trust;
    }

    KeyManager keyManager() {
        return new Keys();
    }

    TrustManager trustManager() {
        return new Trust();
    }

    private static X509ExtendedKeyManager keyManagerOf(SslBundle bundle) {
        return Arrays.stream(bundle.getManagers().getKeyManagers())
                .filter(X509ExtendedKeyManager.class::isInstance)
                .map(X509ExtendedKeyManager.class::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the SSL bundle offers no X.509 key manager"));
    }

    private static X509ExtendedTrustManager trustManagerOf(SslBundle bundle) {
        return Arrays.stream(bundle.getManagers().getTrustManagers())
                .filter(X509ExtendedTrustManager.class::isInstance)
                .map(X509ExtendedTrustManager.class::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the SSL bundle offers no X.509 trust manager"));
    }

    private final class Keys extends X509ExtendedKeyManager {

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return keyManager.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return keyManager.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return keyManager.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return keyManager.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return keyManager.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return keyManager.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keyManager.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keyManager.getPrivateKey(alias);
        }
    }

    private final class Trust extends X509ExtendedTrustManager {

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            trustManager.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            trustManager.checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            trustManager.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            trustManager.checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            trustManager.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            trustManager.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return trustManager.getAcceptedIssuers();
        }
    }
}
