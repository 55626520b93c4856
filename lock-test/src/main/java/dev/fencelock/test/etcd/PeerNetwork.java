package dev.fencelock.test.etcd;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The links between the members of a cluster built with {@link EtcdCluster.Builder#peerNetwork()}, which a test
 * can partition: members on one side of a partition neither send to nor hear from the other side, while clients
 * still reach every member.
 *
 * <pre>{@code
 * cluster.peerNetwork().isolate(cluster.leader()); // the other two elect a new leader
 * cluster.peerNetwork().heal();
 * }</pre>
 *
 * <p>Each member advertises a proxy's port instead of its own peer port, so every connection between members
 * passes a proxy in front of the receiving member. A proxy attributes a connection to the member process that
 * opened it (through {@code /proc}, so Linux only) and drops it when a partition separates the two; pausing a
 * process cannot do that, since a paused member also stops answering its clients.
 */
public final class PeerNetwork implements AutoCloseable {

    private final List<PeerLinkProxy> proxies = new ArrayList<>();
    private volatile List<EtcdMember> members = List.of();
    private volatile Set<Integer> side = Set.of();

    private PeerNetwork() {}

    /** Starts one proxy per member, in front of {@code peerPorts[i]}. */
    static PeerNetwork start(int[] peerPorts) {
        PeerNetwork network = new PeerNetwork();
        for (int i = 0; i < peerPorts.length; i++) {
            network.proxies.add(new PeerLinkProxy(i, peerPorts[i], network::origin, network::allows));
        }
        return network;
    }

    /** The ports that other members reach each member on, in member order. */
    int[] advertisedPorts() {
        return proxies.stream().mapToInt(PeerLinkProxy::port).toArray();
    }

    void attach(List<EtcdMember> members) {
        this.members = List.copyOf(members);
    }

    /** Cuts {@code member} off from every other member, in both directions, until {@link #heal()}. */
    public void isolate(EtcdMember member) {
        partition(List.of(member));
    }

    /**
     * Splits the cluster in two: {@code side} and the rest. Links within each side keep working; open connections
     * across the split are closed and new ones are closed as soon as they are accepted. Replaces any earlier
     * partition.
     *
     * @throws IllegalArgumentException if a member is not one of this cluster's
     */
    public void partition(Collection<EtcdMember> side) {
        Set<Integer> indexes = side.stream().map(this::indexOf).collect(Collectors.toUnmodifiableSet());
        this.side = indexes;
        proxies.forEach(PeerLinkProxy::enforce);
    }

    /** Lets every member reach every other again. */
    public void heal() {
        side = Set.of();
    }

    /** Whether a partition is in place. */
    public boolean isPartitioned() {
        return !side.isEmpty();
    }

    /** Stops the proxies; the cluster does it when it closes. */
    @Override
    public void close() {
        proxies.forEach(PeerLinkProxy::close);
    }

    @Override
    public String toString() {
        Set<Integer> current = side;
        if (current.isEmpty()) {
            return "PeerNetwork[whole]";
        }
        return "PeerNetwork[partitioned: "
                + current.stream().map(i -> "m" + (i + 1)).sorted().collect(Collectors.joining(",")) + " | rest]";
    }

    /** Traffic flows between two members on the same side; connections of unknown origin are let through. */
    private boolean allows(int from, int to) {
        if (from < 0) {
            return true;
        }
        Set<Integer> current = side;
        return current.contains(from) == current.contains(to);
    }

    private int origin(int localPort, int remotePort) {
        List<EtcdMember> current = members;
        List<Long> pids = new ArrayList<>();
        for (EtcdMember member : current) {
            pids.add(pidOrZero(member));
        }
        OptionalLong owner = ConnectionOrigin.ownerOf(localPort, remotePort, pids);
        return owner.isPresent() ? pids.indexOf(owner.getAsLong()) : -1;
    }

    private static long pidOrZero(EtcdMember member) {
        try {
            return member.pid();
        } catch (IllegalStateException e) {
            return 0; // not launched yet: cannot own a connection
        }
    }

    private int indexOf(EtcdMember member) {
        int index = members.indexOf(member);
        if (index < 0) {
            throw new IllegalArgumentException(member + " is not a member of this cluster");
        }
        return index;
    }
}
