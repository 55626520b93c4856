package dev.fencelock.test.etcd;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.jspecify.annotations.Nullable;

/** Where the etcd binary the kit starts comes from. */
final class EtcdBinary {

    private EtcdBinary() {}

    /** Finds the etcd binary: explicit path, then system property, then environment variable, then Debian's. */
    static Path resolve(@Nullable Path explicit) {
        String property = System.getProperty(EtcdCluster.BINARY_PROPERTY);
        String environment = System.getenv(EtcdCluster.BINARY_ENVIRONMENT_VARIABLE);
        Path binary;
        String source;
        if (explicit != null) {
            binary = explicit;
            source = "EtcdCluster.Builder.binary";
        } else if (property != null && !property.isBlank()) {
            binary = Paths.get(property);
            source = "system property " + EtcdCluster.BINARY_PROPERTY;
        } else if (environment != null && !environment.isBlank()) {
            binary = Paths.get(environment);
            source = "environment variable " + EtcdCluster.BINARY_ENVIRONMENT_VARIABLE;
        } else {
            binary = EtcdCluster.DEFAULT_BINARY;
            source = "the default location";
        }
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new IllegalStateException("no executable etcd at " + binary + " (from " + source + "). "
                    + "Install it with `apt-get install -y etcd-server` (Debian/Ubuntu), or point the system property "
                    + EtcdCluster.BINARY_PROPERTY + " or the environment variable "
                    + EtcdCluster.BINARY_ENVIRONMENT_VARIABLE
                    + " at an etcd 3.4+ binary.");
        }
        return binary;
    }
}
