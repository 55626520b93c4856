package dev.fencelock.autoconfigure.etcd;

import java.util.List;

/**
 * Stops the application because its FenceLock namespace nests with another one on the same etcd
 * cluster ({@code /fencelock} and {@code /fencelock/orders}): their keys would overlap, so locks of
 * one could appear in the queues of the other. {@link NestedNamespacesFailureAnalyzer} reports it.
 */
public class NestedNamespacesException extends IllegalStateException {

    private final String namespace;

    private final List<String> others;

    private final String where;

    /**
     * Creates the exception.
     *
     * @param namespace the namespace that cannot be used
     * @param others the namespaces it nests with
     * @param where where the others were found, e.g. "in this application" or "registered on etcd[...]"
     */
    public NestedNamespacesException(String namespace, List<String> others, String where) {
        super(description(namespace, others, where) + " " + action(namespace));
        this.namespace = namespace;
        this.others = List.copyOf(others);
        this.where = where;
    }

    /** The namespace that cannot be used. */
    public String getNamespace() {
        return this.namespace;
    }

    /** The namespaces it nests with. */
    public List<String> getOthers() {
        return this.others;
    }

    /** Where the others were found. */
    public String getWhere() {
        return this.where;
    }

    static String description(String namespace, List<String> others, String where) {
        return "FenceLock namespace '" + namespace + "' and " + String.join(", ", quoted(others)) + " " + where
                + " nest: one lies inside the other, so their lock keys would overlap (a key of"
                + " '<outer>/locks/x/...' is a key of resource 'x' of the outer namespace).";
    }

    static String action(String namespace) {
        return "Give '" + namespace + "' a namespace that neither contains nor lies inside another one on the same"
                + " etcd cluster (fencelock.namespace, or EtcdLockBackend.Builder.namespace), e.g. a sibling such"
                + " as '/fencelock-orders'. A namespace registration that is no longer used can be removed with"
                + " 'etcdctl del fencelock-namespaces/<namespace with / as %2F>' (see docs/operations.md).";
    }

    private static List<String> quoted(List<String> values) {
        return values.stream().map(value -> "'" + value + "'").toList();
    }
}
