package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reads lock keys straight from etcd, bypassing the client under test, to check the data and not the log. */
final class EtcdObserver implements AutoCloseable {

    private final Client client;

    private final EtcdLockBackend layout;

    EtcdObserver(List<String> endpoints) {
        this.client =
                Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
        this.layout = EtcdLockBackend.builder().client(this.client).build();
    }

    List<KeyValue> keysOf(String resource) {
        try {
            return this.client
                    .getKVClient()
                    .get(
                            ByteSequence.from(this.layout.resourcePrefix(resource), StandardCharsets.UTF_8),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .build())
                    .get(30, TimeUnit.SECONDS)
                    .getKvs();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not read keys of " + resource, ex);
        }
    }

    /** The keys whose name starts with {@code prefix}, whatever part of the layout they belong to. */
    List<KeyValue> keysUnder(String prefix) {
        try {
            return this.client
                    .getKVClient()
                    .get(
                            ByteSequence.from(prefix, StandardCharsets.UTF_8),
                            GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS)
                    .getKvs();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not read keys under " + prefix, ex);
        }
    }

    @Override
    public void close() {
        this.layout.close();
        this.client.close();
    }
}
