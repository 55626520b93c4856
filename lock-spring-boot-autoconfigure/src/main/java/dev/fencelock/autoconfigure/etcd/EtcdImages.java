package dev.fencelock.autoconfigure.etcd;

import java.util.List;

/** The etcd images that service connections recognise, and how they are configured. */
public final class EtcdImages {

    /**
     * Connection names (image repositories without registry and tag): the etcd project's images on
     * its own registry and on quay.io, and Bitnami's.
     */
    public static final List<String> CONNECTION_NAMES = List.of("etcd-development/etcd", "coreos/etcd", "bitnami/etcd");

    /** The client port inside the container. */
    public static final int CLIENT_PORT = 2379;

    /** The user Bitnami's image creates when {@value #BITNAMI_ROOT_PASSWORD} is set. */
    public static final String BITNAMI_ROOT_USER = "root";

    /** Bitnami's variable for the root password, which turns authentication on. */
    public static final String BITNAMI_ROOT_PASSWORD = "ETCD_ROOT_PASSWORD";

    private EtcdImages() {}
}
