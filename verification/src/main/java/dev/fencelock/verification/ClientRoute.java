package dev.fencelock.verification;

import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.fault.GrpcFaultProxy;
import org.jspecify.annotations.Nullable;

/**
 * How one worker reaches one etcd member: through a TCP proxy that can cut it off, and optionally a gRPC proxy
 * behind that which can drop the answers of single calls. Each worker has a route of its own to every member, so
 * a fault on one worker's routes leaves the others alone.
 */
final class ClientRoute implements AutoCloseable {

    private final EtcdMember member;
    private final FaultProxy tcp;
    private final @Nullable GrpcFaultProxy grpc;

    private ClientRoute(EtcdMember member, FaultProxy tcp, @Nullable GrpcFaultProxy grpc) {
        this.member = member;
        this.tcp = tcp;
        this.grpc = grpc;
    }

    /** Opens a route to {@code member}; with {@code grpcHop}, calls also pass a {@link GrpcFaultProxy}. */
    static ClientRoute open(EtcdMember member, boolean grpcHop) {
        GrpcFaultProxy grpc = grpcHop ? GrpcFaultProxy.forEndpoint(member.clientEndpoint()) : null;
        FaultProxy tcp = FaultProxy.forEndpoint(grpc != null ? grpc.endpoint() : member.clientEndpoint());
        return new ClientRoute(member, tcp, grpc);
    }

    EtcdMember member() {
        return member;
    }

    /** The endpoint the worker is given. */
    String endpoint() {
        return tcp.endpoint();
    }

    void cut() {
        tcp.cut();
    }

    void restore() {
        tcp.restore();
    }

    /**
     * Lets the next {@code count} Txns through but drops their answers; 0 ends it.
     *
     * @throws IllegalStateException if the route has no gRPC hop
     */
    void dropTxnAnswers(int count) {
        if (grpc == null) {
            throw new IllegalStateException("the route to " + member.name() + " has no gRPC hop");
        }
        grpc.dropResponses(GrpcFaultProxy.TXN, count);
    }

    @Override
    public void close() {
        tcp.close();
        if (grpc != null) {
            grpc.close();
        }
    }
}
