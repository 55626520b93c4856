package dev.fencelock.benchmarks;

import org.HdrHistogram.Histogram;

/**
 * One case of a closed-loop scenario.
 *
 * @param system the lock implementation
 * @param concurrency threads (scenario 2) or contenders (scenario 3)
 * @param operations cycles or hand-offs completed in the window
 * @param seconds window length
 * @param errors failed operations in the window
 * @param latency cycle or hand-off latency (ns)
 * @param violations double holders or fencing tokens that did not grow
 * @param note anything the table should say about the case
 * @param clientCpuNanos CPU time of the benchmark JVM (the client) over the whole case
 * @param serverCpuNanos CPU time of the etcd members and Redis over the whole case
 * @param allOperations operations over the whole case, warm-up included, to divide CPU by
 * @param etcdRequests gRPC messages etcd received over the whole case, per method
 * @param roundRates operations per second of each round, to show the spread
 * @param sharing how often acquisitions met another thread on their resource, or locked one locked before
 */
public record CaseResult(
        String system,
        int concurrency,
        long operations,
        double seconds,
        long errors,
        Histogram latency,
        long violations,
        String note,
        long clientCpuNanos,
        long serverCpuNanos,
        long allOperations,
        java.util.Map<String, Double> etcdRequests,
        java.util.List<Double> roundRates,
        Sharing sharing) {

    /**
     * Counts of a case whose threads may lock the same resources; all zero where each thread has its own.
     *
     * @param acquisitions acquisitions over the whole case, warm-up included
     * @param contended acquisitions that found another thread of the case acquiring or holding their resource
     * @param reused acquisitions of a resource that had been locked before in the case
     * @param resources distinct resources locked
     */
    public record Sharing(long acquisitions, long contended, long reused, long resources) {

        static final Sharing NONE = new Sharing(0, 0, 0, 0);

        Sharing plus(Sharing other) {
            return new Sharing(
                    this.acquisitions + other.acquisitions,
                    this.contended + other.contended,
                    this.reused + other.reused,
                    this.resources + other.resources);
        }

        /** Share of contended acquisitions, NaN without acquisitions. */
        public double contendedShare() {
            return this.acquisitions == 0 ? Double.NaN : (double) this.contended / this.acquisitions;
        }

        /** Share of acquisitions of a resource locked before, NaN without acquisitions. */
        public double reusedShare() {
            return this.acquisitions == 0 ? Double.NaN : (double) this.reused / this.acquisitions;
        }
    }

    /** A single round: its rate is its own. */
    public CaseResult(
            String system,
            int concurrency,
            long operations,
            double seconds,
            long errors,
            Histogram latency,
            long violations,
            String note,
            long clientCpuNanos,
            long serverCpuNanos,
            long allOperations,
            java.util.Map<String, Double> etcdRequests) {
        this(
                system,
                concurrency,
                operations,
                seconds,
                errors,
                latency,
                violations,
                note,
                clientCpuNanos,
                serverCpuNanos,
                allOperations,
                etcdRequests,
                java.util.List.of(operations / seconds),
                Sharing.NONE);
    }

    /** The same case with what its hold checks counted. */
    public CaseResult withSharing(Sharing counted) {
        return new CaseResult(
                this.system,
                this.concurrency,
                this.operations,
                this.seconds,
                this.errors,
                this.latency,
                this.violations,
                this.note,
                this.clientCpuNanos,
                this.serverCpuNanos,
                this.allOperations,
                this.etcdRequests,
                this.roundRates,
                counted);
    }

    /** The rounds' rates, e.g. {@code "436 / 227"}. */
    public String roundRatesText() {
        StringBuilder text = new StringBuilder();
        this.roundRates.forEach(
                rate -> text.append(text.length() == 0 ? "" : " / ").append(Reports.num(rate)));
        return text.toString();
    }

    public double perSecond() {
        return this.operations / this.seconds;
    }

    /** Client CPU per operation in microseconds. */
    public double clientCpuMicros() {
        return this.allOperations == 0 ? Double.NaN : this.clientCpuNanos / 1e3 / this.allOperations;
    }

    /** Server (etcd members + Redis) CPU per operation in microseconds. */
    public double serverCpuMicros() {
        return this.allOperations == 0 ? Double.NaN : this.serverCpuNanos / 1e3 / this.allOperations;
    }

    /** Merges two rounds of the same case. */
    public CaseResult plus(CaseResult other) {
        org.HdrHistogram.Histogram merged = this.latency.copy();
        merged.add(other.latency);
        String mergedNote =
                this.note.isEmpty() ? other.note : (other.note.isEmpty() ? this.note : this.note + " / " + other.note);
        return new CaseResult(
                this.system,
                this.concurrency,
                this.operations + other.operations,
                this.seconds + other.seconds,
                this.errors + other.errors,
                merged,
                this.violations + other.violations,
                mergedNote,
                this.clientCpuNanos + other.clientCpuNanos,
                this.serverCpuNanos + other.serverCpuNanos,
                this.allOperations + other.allOperations,
                sum(this.etcdRequests, other.etcdRequests),
                concat(this.roundRates, other.roundRates),
                this.sharing.plus(other.sharing));
    }

    private static java.util.List<Double> concat(java.util.List<Double> a, java.util.List<Double> b) {
        java.util.List<Double> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return java.util.List.copyOf(all);
    }

    private static java.util.Map<String, Double> sum(java.util.Map<String, Double> a, java.util.Map<String, Double> b) {
        java.util.Map<String, Double> total = new java.util.TreeMap<>(a);
        b.forEach((method, count) -> total.merge(method, count, Double::sum));
        return total;
    }

    /** etcd requests per operation, e.g. {@code "Txn 2.0, Watch 1.0"}; empty when etcd was not involved. */
    public String etcdRequestsPerOperation() {
        if (this.allOperations == 0) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        this.etcdRequests.forEach((method, count) -> {
            double perOp = count / this.allOperations;
            if (perOp >= 0.01) {
                text.append(text.length() == 0 ? "" : ", ")
                        .append(method)
                        .append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.2f", perOp));
            }
        });
        return text.toString();
    }

    /** A latency percentile in milliseconds, NaN when nothing was recorded. */
    public double millis(double percentile) {
        return Reports.millis(this.latency, percentile);
    }
}
