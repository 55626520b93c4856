package dev.fencelock.etcd;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.util.List;

/**
 * The local waiter next in line behind a released lock, with the mirror showing no other key
 * older than it. Keys older than it can only disappear, so once the release commits at
 * revision {@code D} it owns the lock if its key still exists at {@code D}: the release Txn
 * reads that one key and, if so, hands the lock over without waiting for the watch event.
 */
record Successor(String key, long revision, QueueWaiter waiter) {

    Op read() {
        return Op.get(
                EtcdCalls.bytes(this.key),
                GetOption.builder().withKeysOnly(true).build());
    }

    void handOverIf(GetResponse read) {
        List<KeyValue> kvs = read.getKvs();
        SessionLease session = this.waiter.session();
        // The waiter may have put again since the release chose it: then this read is of its old key.
        if (!kvs.isEmpty()
                && kvs.get(0).getCreateRevision() == this.revision
                && this.waiter.revision() == this.revision
                && session != null) {
            this.waiter.grant(session, this.revision);
        }
    }
}
