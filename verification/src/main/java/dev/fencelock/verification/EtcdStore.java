package dev.fencelock.verification;

import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.verification.fault.EtcdTools;
import dev.fencelock.verification.fault.StoreCluster;
import dev.fencelock.verification.worker.Store;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A fresh three-member etcd cluster from the test kit, with a peer network that can be partitioned (see
 * testing.md), and the tools that only etcd offers faults.
 */
final class EtcdStore implements CampaignStore, StoreCluster, EtcdTools {

    private final EtcdCluster cluster;
    private final List<Member> members;
    private @Nullable EtcdLockBackend operator;

    private EtcdStore(EtcdCluster cluster) {
        this.cluster = cluster;
        this.members = cluster.members().stream().map(Member::new).toList();
    }

    static EtcdStore start() {
        return new EtcdStore(
                EtcdCluster.builder().members(3).peerNetwork().build().start());
    }

    @Override
    public Store store() {
        return Store.ETCD;
    }

    @Override
    public StoreCluster cluster() {
        return this;
    }

    @Override
    public ClientRoute openRoute(StoreCluster.Member member, boolean grpcHop) {
        return ClientRoute.open(member, etcdMember(member).clientEndpoint(), grpcHop);
    }

    @Override
    public List<String> endpoints(List<ClientRoute> routes) {
        return routes.stream().map(ClientRoute::endpoint).toList();
    }

    @Override
    public synchronized LockBackend operatorBackend(String namespace, List<ClientRoute> routes) {
        operator = EtcdLockBackend.builder()
                .endpoints(endpoints(routes))
                .namespace(namespace)
                .instanceId("operator")
                .build();
        return operator;
    }

    @Override
    public EtcdTools etcd() {
        return this;
    }

    @Override
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (EtcdMember member : cluster.members()) {
            member.awaitHealthy(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
    }

    @Override
    public StoreCluster.Member awaitLeader(Duration timeout) {
        return member(cluster.awaitLeader(timeout));
    }

    @Override
    public List<StoreCluster.Member> followers() {
        return cluster.followers().stream().map(this::member).toList();
    }

    @Override
    public List<StoreCluster.Member> members() {
        return List.copyOf(members);
    }

    /** The operator's jetcd client: maintenance goes through the connection the operator already opened. */
    @Override
    public synchronized Client client() {
        if (operator == null) {
            throw new IllegalStateException("the operator's backend is not open yet");
        }
        return operator.client();
    }

    @Override
    public List<String> memberEndpoints() {
        return cluster.members().stream().map(EtcdMember::clientEndpoint).toList();
    }

    @Override
    public void isolate(StoreCluster.Member member) {
        cluster.peerNetwork().isolate(etcdMember(member));
    }

    @Override
    public void heal() {
        cluster.peerNetwork().heal();
    }

    @Override
    public void close() {
        cluster.close();
    }

    private StoreCluster.Member member(EtcdMember etcdMember) {
        return members.stream()
                .filter(member -> member.etcd == etcdMember)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("not a member of this run: " + etcdMember));
    }

    private static EtcdMember etcdMember(StoreCluster.Member member) {
        return ((Member) member).etcd;
    }

    private static final class Member implements StoreCluster.Member {

        private final EtcdMember etcd;

        Member(EtcdMember etcd) {
            this.etcd = etcd;
        }

        @Override
        public String name() {
            return etcd.name();
        }

        @Override
        public void kill() {
            etcd.kill();
        }

        @Override
        public void restart() {
            etcd.restartWithoutWaiting();
        }

        @Override
        public void pause() {
            etcd.pause();
        }

        @Override
        public void resume() {
            etcd.resume();
        }

        @Override
        public String toString() {
            return etcd.toString();
        }
    }
}
