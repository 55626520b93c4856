package dev.fencelock.verification.fault;

import java.time.Duration;
import java.util.List;

/**
 * The store's members as the faults that kill or pause them see them: a three-member etcd cluster or ZooKeeper
 * ensemble. Each member is one object for the whole run, so faults may compare members by identity.
 */
public interface StoreCluster {

    /** The member that leads, waiting up to {@code timeout} for an election. */
    Member awaitLeader(Duration timeout);

    /** The members that do not lead right now. */
    List<Member> followers();

    /** Every member. */
    List<Member> members();

    /** One member: a process of its own, stopped and started by PID. */
    interface Member {

        String name();

        /** {@code SIGKILL}, as a crash would. */
        void kill();

        /** Starts a killed member again on its ports and data, without waiting for it to serve. */
        void restart();

        /** {@code SIGSTOP}: it keeps its sockets but answers nothing. */
        void pause();

        /** {@code SIGCONT}. */
        void resume();
    }
}
