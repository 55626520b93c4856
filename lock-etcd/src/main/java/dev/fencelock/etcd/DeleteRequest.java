package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A guarded delete: {@code key} goes only if its create revision is still {@code revision}, so a
 * delete applied twice, or sent by an old holder, never removes a newer key. With a {@code
 * successor}, the same Txn reads the next waiter's key to hand the lock over.
 */
record DeleteRequest(String key, long revision, @Nullable Successor successor) {

    /** Adds the guarded delete, and the read of the successor's key if there is one, to a Txn. */
    void addTo(List<Cmp> conditions, List<Op> operations) {
        ByteSequence keyBytes = EtcdCalls.bytes(this.key);
        conditions.add(new Cmp(keyBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(this.revision)));
        operations.add(Op.delete(keyBytes, DeleteOption.DEFAULT));
        if (this.successor != null) {
            operations.add(this.successor.read());
        }
    }

    /**
     * After the Txn succeeded: takes this delete's successor read, if it added one, from the Txn's
     * range responses in op order, and returns the hand-over to run.
     */
    Runnable handOver(Iterator<GetResponse> reads) {
        if (this.successor == null) {
            return () -> {};
        }
        GetResponse read = reads.next();
        return () -> this.successor.handOverIf(read);
    }
}
