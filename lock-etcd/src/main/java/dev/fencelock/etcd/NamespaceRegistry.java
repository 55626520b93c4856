package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The namespaces FenceLock uses on one etcd cluster, one key each: {@code
 * fencelock-namespaces/<encoded namespace>}. The root has no leading {@code /}, so it lies inside no
 * namespace (they all start with one) and no application's range reads or watches ever see it.
 *
 * <p>Registering writes the key when it is missing (a Txn on its create revision, so a namespace
 * is registered once, however many instances start) and then reads all registered namespaces.
 * Written before read: of two nested namespaces registering at the same time, the one whose read
 * comes second sees the other. Keys carry no lease: a namespace stays registered after its
 * applications stopped, because its keys (and its holders' tokens) may still be there.
 */
final class NamespaceRegistry {

    /** The prefix of every registry key. */
    static final String ROOT = "fencelock-namespaces/";

    private final EtcdCalls calls;

    private final String namespace;

    NamespaceRegistry(EtcdCalls calls, String namespace) {
        this.calls = calls;
        this.namespace = namespace;
    }

    /** Registers the namespace; completes with the registered namespaces it nests with, sorted. */
    CompletableFuture<List<String>> register() {
        ByteSequence key = EtcdCalls.bytes(ROOT + LockKeys.encode(this.namespace));
        CompletableFuture<?> put = this.calls.timed(
                () -> this.calls
                        .client()
                        .getKVClient()
                        .txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(key, EtcdCalls.bytes(this.namespace), PutOption.DEFAULT))
                        .commit(),
                "registering namespace '" + this.namespace + "'");
        return put.thenCompose(ignored -> this.calls.timed(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(ROOT),
                                        GetOption.builder()
                                                .isPrefix(true)
                                                .withKeysOnly(true)
                                                .build()),
                        "reading the namespace registry"))
                .thenApply((GetResponse response) -> {
                    List<String> nested = new ArrayList<>();
                    for (KeyValue kv : response.getKvs()) {
                        String other = LockKeys.decode(
                                kv.getKey().toString(StandardCharsets.UTF_8).substring(ROOT.length()));
                        if (isNested(this.namespace, other)) {
                            nested.add(other);
                        }
                    }
                    nested.sort(null);
                    return nested;
                });
    }

    /**
     * Whether one namespace lies inside the other ({@code /a} and {@code /a/b}); equal namespaces
     * are one namespace, and {@code /a} and {@code /ab} are apart.
     */
    static boolean isNested(String namespace, String other) {
        return namespace.startsWith(other + "/") || other.startsWith(namespace + "/");
    }
}
