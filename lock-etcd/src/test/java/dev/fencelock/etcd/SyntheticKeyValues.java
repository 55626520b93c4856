package dev.fencelock.etcd;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.api.RangeResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.watch.WatchEvent;

/** Keys, watch events and reads of one resource as etcd would report them, made without etcd. */
final class SyntheticKeyValues {

    static final String PREFIX = "/fencelock/locks/r/";

    private SyntheticKeyValues() {}

    static KeyValue kv(String name, long createRevision, long modRevision) {
        return new KeyValue(proto(name, createRevision, modRevision), ByteSequence.EMPTY);
    }

    static WatchEvent put(String name, long createRevision, long modRevision) {
        return new WatchEvent(kv(name, createRevision, modRevision), null, WatchEvent.EventType.PUT);
    }

    /** etcd reports a deleted key with create revision 0 and the delete's revision as mod revision. */
    static WatchEvent delete(String name, long modRevision) {
        return new WatchEvent(kv(name, 0, modRevision), null, WatchEvent.EventType.DELETE);
    }

    /** A read of one key: found with {@code createRevision}, or absent when it is 0. */
    static GetResponse read(String name, long createRevision) {
        RangeResponse.Builder range = RangeResponse.newBuilder();
        if (createRevision != 0) {
            range.addKvs(proto(name, createRevision, createRevision)).setCount(1);
        }
        return new GetResponse(range.build(), ByteSequence.EMPTY);
    }

    private static io.etcd.jetcd.api.KeyValue proto(String name, long createRevision, long modRevision) {
        return io.etcd.jetcd.api.KeyValue.newBuilder()
                .setKey(ByteString.copyFromUtf8(PREFIX + name))
                .setCreateRevision(createRevision)
                .setModRevision(modRevision)
                .build();
    }
}
