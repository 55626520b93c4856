package dev.fencelock.test.etcd;

import java.util.List;

/**
 * A user for {@link EtcdCluster#enableAuth}: its password and the key prefixes its role may read and write.
 *
 * @param name the user name, also the name of its role
 * @param password the user's password
 * @param prefixes key prefixes (each covering every key that starts with it) the role may read and write; empty
 *     for a user that may touch no key
 */
public record EtcdUser(String name, String password, List<String> prefixes) {

    public EtcdUser {
        prefixes = List.copyOf(prefixes);
    }

    /** A user whose role may read and write the keys under {@code prefixes}. */
    public static EtcdUser withPrefixes(String name, String password, String... prefixes) {
        return new EtcdUser(name, password, List.of(prefixes));
    }
}
