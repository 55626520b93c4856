package dev.fencelock.verification.worker;

import java.util.Arrays;

/** The consensus store a run's locks live in, chosen with {@code -Dverify.store}. */
public enum Store {
    ETCD("etcd"),
    ZOOKEEPER("zookeeper");

    private final String label;

    Store(String label) {
        this.label = label;
    }

    /** The name in settings and reports. */
    public String label() {
        return label;
    }

    /** The store named {@code label}, such as {@code zookeeper}. */
    public static Store of(String label) {
        return Arrays.stream(values())
                .filter(store -> store.label.equals(label.trim()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no store named '" + label + "'; known: "
                        + Arrays.stream(values()).map(Store::label).toList()));
    }
}
