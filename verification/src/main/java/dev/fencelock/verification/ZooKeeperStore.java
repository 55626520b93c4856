package dev.fencelock.verification;

import dev.fencelock.spi.LockBackend;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import dev.fencelock.verification.fault.EtcdTools;
import dev.fencelock.verification.fault.StoreCluster;
import dev.fencelock.verification.worker.Store;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A fresh three-member ZooKeeper ensemble from the test kit (Debian's server, 500 ms ticks, so sessions of 1 s and
 * up). It has no peer network to split: a member is killed or paused whole.
 */
final class ZooKeeperStore implements CampaignStore, StoreCluster {

    private static final Duration POLL = Duration.ofMillis(50);

    private final ZooKeeperEnsemble ensemble;
    private final List<Member> members;

    private ZooKeeperStore(ZooKeeperEnsemble ensemble) {
        this.ensemble = ensemble;
        this.members = ensemble.members().stream().map(Member::new).toList();
    }

    static ZooKeeperStore start() {
        return new ZooKeeperStore(ZooKeeperEnsemble.start(3));
    }

    @Override
    public Store store() {
        return Store.ZOOKEEPER;
    }

    @Override
    public StoreCluster cluster() {
        return this;
    }

    @Override
    public ClientRoute openRoute(StoreCluster.Member member, boolean grpcHop) {
        if (grpcHop) {
            throw new IllegalArgumentException("ZooKeeper speaks no gRPC; no fault on it needs a gRPC hop");
        }
        return ClientRoute.open(member, "http://" + ((Member) member).server.address(), false);
    }

    /** One address per route; the worker joins them into its connect string. */
    @Override
    public List<String> endpoints(List<ClientRoute> routes) {
        return routes.stream().map(ClientRoute::address).toList();
    }

    @Override
    public LockBackend operatorBackend(String namespace, List<ClientRoute> routes) {
        return ZooKeeperLockBackend.builder()
                .connectString(String.join(",", endpoints(routes)))
                .namespace(namespace)
                .instanceId("operator")
                .build();
    }

    @Override
    public EtcdTools etcd() {
        throw new IllegalStateException("this fault needs etcd; the run is on ZooKeeper");
    }

    /** Every member serves: a follower serves only once it follows an elected leader. */
    @Override
    public void awaitHealthy(Duration timeout) {
        await(
                timeout,
                "every ZooKeeper member serving",
                () -> members.stream().allMatch(member -> member.server.mode() != null));
    }

    @Override
    public StoreCluster.Member awaitLeader(Duration timeout) {
        Member[] leader = new Member[1];
        await(timeout, "a ZooKeeper leader", () -> {
            for (Member member : members) {
                if ("leader".equals(member.server.mode())) {
                    leader[0] = member;
                    return true;
                }
            }
            return false;
        });
        return leader[0];
    }

    /** The members but the leader, once one leads. */
    @Override
    public List<StoreCluster.Member> followers() {
        StoreCluster.Member leader = awaitLeader(Duration.ofSeconds(15));
        return members.stream()
                .filter(member -> member != leader)
                .map(StoreCluster.Member.class::cast)
                .toList();
    }

    @Override
    public List<StoreCluster.Member> members() {
        return List.copyOf(members);
    }

    @Override
    public void close() {
        ensemble.close();
    }

    private static void await(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no " + what + " within " + timeout);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    private static final class Member implements StoreCluster.Member {

        private final ZooKeeperEnsemble.Member server;

        Member(ZooKeeperEnsemble.Member server) {
            this.server = server;
        }

        @Override
        public String name() {
            return "zk" + server.id();
        }

        @Override
        public void kill() {
            server.kill();
        }

        @Override
        public void restart() {
            server.restart();
        }

        @Override
        public void pause() {
            server.pause();
        }

        @Override
        public void resume() {
            server.resume();
        }

        @Override
        public String toString() {
            return server.toString();
        }
    }
}
