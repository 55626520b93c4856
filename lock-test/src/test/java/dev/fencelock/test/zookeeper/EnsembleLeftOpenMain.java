package dev.fencelock.test.zookeeper;

/**
 * A JVM that starts a ZooKeeper server, prints its member's PID and waits to be ended without ever closing the
 * ensemble, as a test JVM that is stopped in the middle of a class does.
 */
public final class EnsembleLeftOpenMain {

    private EnsembleLeftOpenMain() {}

    public static void main(String[] args) throws InterruptedException {
        ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.standalone();
        System.out.println("pid " + ensemble.members().get(0).pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
