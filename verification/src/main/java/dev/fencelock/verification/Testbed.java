package dev.fencelock.verification;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.verification.fault.EtcdTools;
import dev.fencelock.verification.fault.FaultTarget;
import dev.fencelock.verification.fault.StoreCluster;
import dev.fencelock.verification.worker.Linger;
import dev.fencelock.verification.worker.RunTables;
import dev.fencelock.verification.worker.Store;
import dev.fencelock.verification.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running run: the store, one route per worker and member, the worker processes, and an operator's lock
 * client. Closing it stops the workers (killing those that do not stop) and closes the routes.
 */
final class Testbed implements FaultTarget, AutoCloseable {

    /** How long the operator's first call may take, retries included, before the run gives up. */
    private static final Duration OPERATOR_WARM_UP = Duration.ofSeconds(60);

    /** The instance id in a holder record: {@code {"instance":"w2",...}}. */
    private static final Pattern INSTANCE = Pattern.compile("\"instance\"\\s*:\\s*\"([^\"]*)\"");

    private final CampaignStore store;
    private final CampaignSettings settings;
    private final FaultLog log;
    private final List<ClientRoute> routes = new ArrayList<>();
    private final List<TestbedWorker> workers = new ArrayList<>();
    private final LockClient operator;
    private final List<ClientRoute> operatorRoutes;
    private int nextWorker;

    private Testbed(
            CampaignStore store,
            CampaignSettings settings,
            FaultLog log,
            LockClient operator,
            List<ClientRoute> operatorRoutes) {
        this.store = store;
        this.settings = settings;
        this.log = log;
        this.operator = operator;
        this.operatorRoutes = List.copyOf(operatorRoutes);
    }

    /** Opens the routes and an operator client, and launches the workers; they start working at once. */
    static Testbed start(
            CampaignStore store, CampaignSettings settings, RunTables tables, String namespace, Path dir, FaultLog log)
            throws Exception {
        List<ClientRoute> operatorRoutes = new ArrayList<>();
        for (StoreCluster.Member member : store.cluster().members()) {
            operatorRoutes.add(store.openRoute(member, false));
        }
        LockClient operator;
        try {
            operator = LockClient.builder(store.operatorBackend(namespace, operatorRoutes))
                    .build();
        } catch (RuntimeException | Error e) {
            operatorRoutes.forEach(ClientRoute::close);
            throw e;
        }
        Testbed testbed = new Testbed(store, settings, log, operator, operatorRoutes);
        try {
            // The operator's first call opens its connection and runs its code for the first time; on a busy machine
            // that took seconds, longer than a caught holder lingers, so the first force-release came too late.
            testbed.warmUpOperator(settings.keyNames().get(0));
            for (int w = 1; w <= settings.workers(); w++) {
                String id = "w" + w;
                List<ClientRoute> own = new ArrayList<>();
                for (StoreCluster.Member member : store.cluster().members()) {
                    own.add(store.openRoute(member, settings.needsGrpcHop()));
                }
                testbed.routes.addAll(own);
                WorkerConfig config = new WorkerConfig(
                        id,
                        store.store(),
                        store.endpoints(own),
                        namespace,
                        settings.keyNames(),
                        settings.threadsPerWorker(),
                        settings.leaseTtl(),
                        settings.waitTimeout(),
                        settings.thinkMax(),
                        settings.guard(),
                        RunDatabase.url(),
                        RunDatabase.USER,
                        RunDatabase.USER,
                        tables,
                        dir.resolve("history-" + id + ".jsonl"),
                        settings.seed() * 1_000 + w);
                WorkerProcess process = WorkerProcess.launch(
                        config, dir.resolve("worker-" + id + ".properties"), dir.resolve("worker-" + id + ".log"));
                testbed.workers.add(new TestbedWorker(process, own));
            }
            for (TestbedWorker worker : testbed.workers) {
                worker.process.awaitReady(Duration.ofSeconds(60));
            }
            return testbed;
        } catch (Exception | Error e) {
            testbed.close();
            throw e;
        }
    }

    /**
     * Makes the operator's first call. On a machine with a load of 20 on two cores, a freshly started cluster did not
     * answer it within the backend's 5 s: it tries again, for at most {@link #OPERATOR_WARM_UP} in all.
     */
    private void warmUpOperator(String key) throws Exception {
        long deadline = System.nanoTime() + OPERATOR_WARM_UP.toNanos();
        while (true) {
            try {
                queue(key);
                return;
            } catch (ExecutionException | TimeoutException e) {
                boolean unanswered =
                        e instanceof TimeoutException || e.getCause() instanceof LockBackendUnavailableException;
                if (!unanswered || System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }

    /** Acknowledged increments so far, summed over the workers' last reports. */
    long acknowledged() {
        return workers.stream()
                .mapToLong(worker -> worker.process.acknowledged())
                .sum();
    }

    /** Waits until every member reports healthy again after a fault. */
    void awaitClusterHealthy(Duration timeout) {
        store.awaitHealthy(timeout);
    }

    /** Tells every worker to stop and waits for them (killing any that do not stop in time). */
    void stopWorkers() throws InterruptedException {
        for (TestbedWorker worker : workers) {
            worker.process.resume();
        }
        for (TestbedWorker worker : workers) {
            worker.process.stop(Duration.ofSeconds(40));
        }
    }

    @Override
    public Store store() {
        return store.store();
    }

    @Override
    public StoreCluster cluster() {
        return store.cluster();
    }

    @Override
    public EtcdTools etcd() {
        return store.etcd();
    }

    @Override
    public Duration leaseTtl() {
        return settings.leaseTtl();
    }

    @Override
    public synchronized Worker nextWorker() {
        return workers.get(nextWorker++ % workers.size());
    }

    @Override
    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    @Override
    public Optional<QueuedKey> forceRelease(String key) throws Exception {
        return operator.administration()
                .orElseThrow()
                .forceRelease(ResourceName.of(key, ResourceName.DEFAULT_MAX_LENGTH))
                .get(10, TimeUnit.SECONDS)
                .map(Testbed::queued);
    }

    @Override
    public void cutOperatorFrom(StoreCluster.Member member) {
        operatorRoutes.stream().filter(route -> route.member() == member).forEach(ClientRoute::cut);
    }

    @Override
    public void reconnectOperator() {
        operatorRoutes.forEach(ClientRoute::restore);
    }

    @Override
    public List<QueuedKey> queue(String key) throws Exception {
        return operator
                .administration()
                .orElseThrow()
                .queue(ResourceName.of(key, ResourceName.DEFAULT_MAX_LENGTH))
                .get(10, TimeUnit.SECONDS)
                .stream()
                .map(Testbed::queued)
                .toList();
    }

    /** The worker is the instance id its holder record names. */
    private static QueuedKey queued(QueueEntry entry) {
        Matcher instance = INSTANCE.matcher(entry.holder());
        return new QueuedKey(entry.fencingToken(), instance.find() ? instance.group(1) : entry.holder());
    }

    @Override
    public void window(String name, String detail, long start, long end) {
        log.window(name, detail, start, end);
    }

    @Override
    public void deletionWindow(String name, String detail, long start, long end, Deletion deletion) {
        log.deletionWindow(name, detail, start, end, deletion);
    }

    @Override
    public void hold(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }

    @Override
    public void close() {
        workers.forEach(worker -> worker.process.close());
        routes.forEach(ClientRoute::close);
        operator.close();
        operatorRoutes.forEach(ClientRoute::close);
    }

    /** A worker process with its routes, as faults see it. */
    private static final class TestbedWorker implements Worker {

        private final WorkerProcess process;
        private final List<ClientRoute> routes;

        TestbedWorker(WorkerProcess process, List<ClientRoute> routes) {
            this.process = process;
            this.routes = List.copyOf(routes);
        }

        @Override
        public String id() {
            return process.id();
        }

        @Override
        public void linger(Linger order) {
            process.linger(order);
        }

        @Override
        public Optional<LingerNotice> awaitLingering(Duration timeout) throws InterruptedException {
            return process.awaitLingering(timeout);
        }

        @Override
        public void endLinger() {
            process.endLinger();
        }

        @Override
        public void pause() {
            process.pause();
        }

        @Override
        public void resume() {
            process.resume();
        }

        @Override
        public void cutFromStore() {
            routes.forEach(ClientRoute::cut);
        }

        @Override
        public void silenceStore() {
            routes.forEach(ClientRoute::silence);
        }

        @Override
        public void dropAnswers() {
            routes.forEach(ClientRoute::dropAnswers);
        }

        @Override
        public void confineTo(StoreCluster.Member member) {
            routes.stream().filter(route -> route.member() != member).forEach(ClientRoute::cut);
        }

        @Override
        public void cutFrom(StoreCluster.Member member) {
            routes.stream().filter(route -> route.member() == member).forEach(ClientRoute::cut);
        }

        @Override
        public void reconnectToStore() {
            routes.forEach(ClientRoute::restore);
        }

        @Override
        public void dropTxnAnswers(int count) {
            routes.forEach(route -> route.dropTxnAnswers(count));
        }
    }
}
