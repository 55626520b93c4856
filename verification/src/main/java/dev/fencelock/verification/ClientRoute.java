package dev.fencelock.verification;

import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.fault.GrpcFaultProxy;
import dev.fencelock.verification.fault.StoreCluster;
import org.jspecify.annotations.Nullable;

/**
 * How one worker reaches one member of the store: through a TCP proxy that can cut it off, silence it or drop its
 * answers, and on etcd optionally a gRPC proxy behind that which can drop the answers of single calls. Each worker
 * has a route of its own to every member, so a fault on one worker's routes leaves the others alone.
 */
final class ClientRoute implements AutoCloseable {

    private final StoreCluster.Member member;
    private final FaultProxy tcp;
    private final @Nullable GrpcFaultProxy grpc;

    private ClientRoute(StoreCluster.Member member, FaultProxy tcp, @Nullable GrpcFaultProxy grpc) {
        this.member = member;
        this.tcp = tcp;
        this.grpc = grpc;
    }

    /**
     * Opens a route to {@code member}, which serves clients at {@code clientEndpoint} ({@code http://host:port});
     * with {@code grpcHop}, calls also pass a {@link GrpcFaultProxy} (etcd only).
     */
    static ClientRoute open(StoreCluster.Member member, String clientEndpoint, boolean grpcHop) {
        GrpcFaultProxy grpc = grpcHop ? GrpcFaultProxy.forEndpoint(clientEndpoint) : null;
        FaultProxy tcp = FaultProxy.forEndpoint(grpc != null ? grpc.endpoint() : clientEndpoint);
        return new ClientRoute(member, tcp, grpc);
    }

    StoreCluster.Member member() {
        return member;
    }

    /** The endpoint an etcd worker is given: {@code http://127.0.0.1:<port>}. */
    String endpoint() {
        return tcp.endpoint();
    }

    /** The address a ZooKeeper worker is given: {@code 127.0.0.1:<port>}. */
    String address() {
        return "127.0.0.1:" + tcp.port();
    }

    void cut() {
        tcp.cut();
    }

    /** Drops every byte both ways, with the sockets left open. */
    void silence() {
        tcp.blackhole();
    }

    /** Lets requests through and drops every answer. */
    void dropAnswers() {
        tcp.blackholeResponses();
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
