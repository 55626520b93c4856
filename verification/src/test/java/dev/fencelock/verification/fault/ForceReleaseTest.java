package dev.fencelock.verification.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.fault.FaultTarget.LingerNotice;
import dev.fencelock.verification.fault.FaultTarget.QueuedKey;
import dev.fencelock.verification.worker.Linger;
import dev.fencelock.verification.worker.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The force-release fault against a scripted lock queue: it must delete the key of the operation it caught lingering
 * and log what it deleted, never a later holder's key, and it cuts the holder off from etcd only when cutting leaves
 * a waiter that can take the lock.
 */
class ForceReleaseTest {

    private final ScriptedTarget target = new ScriptedTarget();

    @Test
    void deletesTheLingeringHoldersKeyAndLogsItsToken() throws Exception {
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-7", "k2", 13));
        target.queue.addAll(List.of(new QueuedKey(13, "w1"), new QueuedKey(15, "w2")));

        new ForceRelease().inject(target);

        assertThat(target.windows).singleElement().satisfies(window -> {
            assertThat(window.lockKey()).isEqualTo("k2");
            assertThat(window.deletedToken()).isEqualTo(13L);
            assertThat(window.detail()).contains("force-released k2", "w1-0-7", "token 13");
        });
        assertThat(target.queue).containsExactly(new QueuedKey(15, "w2"));
    }

    @Test
    void aHolderThatIsGoneWhenTheOperatorLooksIsNotReplacedByWhoeverHoldsNow() throws Exception {
        // The operation lingered, but by the time the operator read the queue it had committed and released: another
        // operation holds the lock now. Deleting that one's key would be a different fault than the log claims.
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-2", "k2", 13));
        target.queue.addAll(List.of(new QueuedKey(94, "w2"), new QueuedKey(95, "w1")));

        new ForceRelease().inject(target);

        assertThat(target.queue).as("nobody's key is deleted").hasSize(2);
        assertThat(target.windows).singleElement().satisfies(window -> {
            assertThat(window.lockKey()).isEqualTo("k2");
            assertThat(window.deletedToken()).as("nothing deleted").isNull();
            assertThat(window.detail()).doesNotStartWith("force-released").contains("w1-0-2", "token 13", "94");
        });
    }

    @Test
    void theCutHolderIsCutOnlyWhenAnotherWorkerWaitsNextInLine() throws Exception {
        ForceRelease fault = new ForceRelease();
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-7", "k0", 10));
        target.queue.addAll(List.of(new QueuedKey(10, "w1")));
        fault.inject(target);
        // Second injection, before the first statement: next in line is the holder's own worker, which a cut would
        // keep from learning that it was granted the lock; nobody else could write before the holder.
        target.queue.clear();
        target.w2.notices.add(new LingerNotice(Linger.Phase.AFTER_ACQUIRE, "w2-1-36", "k0", 434));
        target.queue.addAll(List.of(new QueuedKey(434, "w2"), new QueuedKey(440, "w2"), new QueuedKey(444, "w1")));
        fault.inject(target);
        // Third: after-read again. Fourth: next in line is another worker's, so the holder is cut.
        target.queue.clear();
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-1-40", "k1", 500));
        target.queue.addAll(List.of(new QueuedKey(500, "w1")));
        fault.inject(target);
        target.queue.clear();
        target.w2.notices.add(new LingerNotice(Linger.Phase.AFTER_ACQUIRE, "w2-0-50", "k1", 600));
        target.queue.addAll(List.of(new QueuedKey(600, "w2"), new QueuedKey(601, "w3"), new QueuedKey(602, "w2")));
        fault.inject(target);

        assertThat(target.windows).extracting(Window::deletedToken).containsExactly(10L, 434L, 500L, 600L);
        assertThat(target.events)
                .containsExactly(
                        "w1 linger AFTER_READ",
                        "force-release k0",
                        "w1 endlinger",
                        "logged",
                        "w2 linger AFTER_ACQUIRE",
                        "force-release k0",
                        "w2 endlinger",
                        "logged",
                        "w1 linger AFTER_READ",
                        "force-release k1",
                        "w1 endlinger",
                        "logged",
                        "w2 linger AFTER_ACQUIRE",
                        "w2 cut",
                        "force-release k1",
                        "w2 endlinger",
                        "w2 reconnect",
                        "logged");
        assertThat(target.windows.get(1).detail()).contains("not cut", "w2");
        assertThat(target.windows.get(3).detail()).contains("holder cut from etcd");
    }

    @Test
    void aHolderAboutToBeCutWaitsBrieflyForSomeoneToQueueBehindIt() throws Exception {
        ForceRelease fault = new ForceRelease();
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-7", "k0", 10));
        target.queue.add(new QueuedKey(10, "w1"));
        fault.inject(target);
        // Just acquired, nobody waits yet; a waiter of w3 queues a moment later, so the holder can be cut.
        target.queue.clear();
        target.w2.notices.add(new LingerNotice(Linger.Phase.AFTER_ACQUIRE, "w2-1-36", "k0", 434));
        target.queue.add(new QueuedKey(434, "w2"));
        target.arrivals.add(new QueuedKey(437, "w3"));
        fault.inject(target);
        // Nobody ever queues: after its bounded look the holder is released uncut, and learns of it itself.
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-9", "k1", 500));
        target.queue.clear();
        target.queue.add(new QueuedKey(500, "w1"));
        fault.inject(target);
        target.w2.notices.add(new LingerNotice(Linger.Phase.AFTER_ACQUIRE, "w2-0-50", "k1", 600));
        target.queue.clear();
        target.queue.add(new QueuedKey(600, "w2"));
        fault.inject(target);

        assertThat(target.windows).extracting(Window::deletedToken).containsExactly(10L, 434L, 500L, 600L);
        assertThat(target.windows.get(1).detail()).contains("holder cut from etcd");
        assertThat(target.windows.get(3).detail()).contains("not cut: nobody waits");
        assertThat(target.events)
                .containsExactly(
                        "w1 linger AFTER_READ",
                        "force-release k0",
                        "w1 endlinger",
                        "logged",
                        "w2 linger AFTER_ACQUIRE",
                        "w2 cut",
                        "force-release k0",
                        "w2 endlinger",
                        "w2 reconnect",
                        "logged",
                        "w1 linger AFTER_READ",
                        "force-release k1",
                        "w1 endlinger",
                        "logged",
                        "w2 linger AFTER_ACQUIRE",
                        "force-release k1",
                        "w2 endlinger",
                        "logged");
    }

    @Test
    void anOperatorCallThatFailsNamesNoDeletedKeyAndIsLoggedOnceTheHolderIsBack() throws Exception {
        ForceRelease fault = new ForceRelease();
        target.w1.notices.add(new LingerNotice(Linger.Phase.AFTER_READ, "w1-0-7", "k0", 10));
        target.queue.add(new QueuedKey(10, "w1"));
        fault.inject(target);
        target.queue.clear();
        target.w2.notices.add(new LingerNotice(Linger.Phase.AFTER_ACQUIRE, "w2-1-36", "k0", 434));
        target.queue.addAll(List.of(new QueuedKey(434, "w2"), new QueuedKey(437, "w3")));
        target.failing = true;
        fault.inject(target);

        assertThat(target.windows.get(1).lockKey())
                .as("whether it deleted anything is unknown")
                .isNull();
        assertThat(target.windows.get(1).detail()).startsWith("failed to force-release k0 held by w2-1-36");
        assertThat(target.events.subList(target.events.size() - 6, target.events.size()))
                .containsExactly(
                        "w2 linger AFTER_ACQUIRE",
                        "w2 cut",
                        "force-release k0",
                        "w2 endlinger",
                        "w2 reconnect",
                        "logged");
    }

    record Window(
            String detail,
            @Nullable String lockKey,
            @Nullable Long deletedToken) {}

    /** A target whose one lock queue the test writes; the operator's force-release deletes its oldest key. */
    private static final class ScriptedTarget implements FaultTarget {

        final List<QueuedKey> queue = new ArrayList<>();
        /** Keys that join the queue while the fault holds. */
        final List<QueuedKey> arrivals = new ArrayList<>();

        final List<Window> windows = new ArrayList<>();
        final List<String> events = new ArrayList<>();
        boolean failing;
        final ScriptedWorker w1 = new ScriptedWorker("w1", events);
        final ScriptedWorker w2 = new ScriptedWorker("w2", events);
        private int next;

        @Override
        public Store store() {
            return Store.ETCD;
        }

        @Override
        public StoreCluster cluster() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Duration leaseTtl() {
            return Duration.ofSeconds(2);
        }

        @Override
        public Worker nextWorker() {
            return next++ % 2 == 0 ? w1 : w2;
        }

        @Override
        public List<Worker> workers() {
            return List.of(w1, w2);
        }

        @Override
        public Optional<QueuedKey> forceRelease(String key) {
            events.add("force-release " + key);
            if (failing) {
                throw new IllegalStateException("no quorum");
            }
            return queue.isEmpty() ? Optional.empty() : Optional.of(queue.remove(0));
        }

        @Override
        public void cutOperatorFrom(StoreCluster.Member member) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reconnectOperator() {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<QueuedKey> queue(String key) {
            return List.copyOf(queue);
        }

        @Override
        public EtcdTools etcd() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void window(String name, String detail, long start, long end) {
            events.add("logged");
            windows.add(new Window(detail, null, null));
        }

        @Override
        public void deletionWindow(String name, String detail, long start, long end, Deletion deletion) {
            assertThat(name).isEqualTo("force-release");
            assertThat(end).isGreaterThanOrEqualTo(start);
            events.add("logged");
            windows.add(new Window(detail, deletion.lockKey(), deletion.deletedToken()));
        }

        @Override
        public void hold(Duration duration) {
            queue.addAll(arrivals);
            arrivals.clear();
        }
    }

    /** A worker whose linger notices the test supplies; it records what the fault did to it. */
    private static final class ScriptedWorker implements FaultTarget.Worker {

        final List<LingerNotice> notices = new ArrayList<>();
        private final List<String> events;
        private final String id;

        ScriptedWorker(String id, List<String> events) {
            this.id = id;
            this.events = events;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void linger(Linger order) {
            events.add(id + " linger " + order.phase());
        }

        @Override
        public Optional<LingerNotice> awaitLingering(Duration timeout) {
            return notices.isEmpty() ? Optional.empty() : Optional.of(notices.remove(0));
        }

        @Override
        public void endLinger() {
            events.add(id + " endlinger");
        }

        @Override
        public void pause() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void resume() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void cutFromStore() {
            events.add(id + " cut");
        }

        @Override
        public void silenceStore() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void dropAnswers() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void confineTo(StoreCluster.Member member) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void cutFrom(StoreCluster.Member member) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reconnectToStore() {
            events.add(id + " reconnect");
        }

        @Override
        public void dropTxnAnswers(int count) {
            throw new UnsupportedOperationException();
        }
    }
}
