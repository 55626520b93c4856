package dev.fencelock.verification.checker;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a run directory: every worker's {@value #HISTORY_GLOB} file (one JSON object per line: {@code invoke},
 * {@code acquired}, {@code read}, {@code commit}, {@code ok} / {@code fail} / {@code info}, {@code released}, and
 * {@code lost} whenever a lock's lost-listener ran) and the orchestrator's {@value #FAULTS_FILE} ({@code run-start}
 * with the lease TTL, {@code fault}, with the lock key and deleted token for a force-release, {@code run-end}).
 */
public final class HistoryFiles {

    /** The workers' files. */
    public static final String HISTORY_GLOB = "history-*.jsonl";

    /** The orchestrator's file. */
    public static final String FAULTS_FILE = "faults.jsonl";

    private HistoryFiles() {}

    /** Reads the run in {@code directory}. */
    public static History read(Path directory) throws IOException {
        Map<String, Draft> drafts = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> histories = Files.newDirectoryStream(directory, HISTORY_GLOB)) {
            histories.forEach(files::add);
        }
        files.sort(Comparator.naturalOrder());
        for (Path file : files) {
            readLines(file, problems, (fields, where) -> applyEvent(drafts, fields, where, problems));
        }
        List<FaultWindow> faults = new ArrayList<>();
        long[] bounds = {Long.MIN_VALUE, Long.MIN_VALUE, 0};
        Path faultFile = directory.resolve(FAULTS_FILE);
        if (Files.exists(faultFile)) {
            readLines(faultFile, problems, (fields, where) -> {
                switch (String.valueOf(fields.get("type"))) {
                    case "run-start" -> {
                        bounds[0] = number(fields, "t");
                        if (fields.containsKey("leaseTtlMillis")) {
                            bounds[2] = number(fields, "leaseTtlMillis") * 1_000_000L;
                        }
                    }
                    case "run-end" -> bounds[1] = number(fields, "t");
                    case "fault" ->
                        faults.add(new FaultWindow(
                                String.valueOf(fields.get("name")),
                                String.valueOf(fields.getOrDefault("detail", "")),
                                number(fields, "start"),
                                number(fields, "end"),
                                deletion(fields)));
                    default -> problems.add(where + ": unknown record " + fields.get("type"));
                }
            });
        } else {
            problems.add("no " + FAULTS_FILE + " in " + directory);
        }
        faults.sort(Comparator.comparingLong(FaultWindow::start));
        Map<String, Operation> operations = new LinkedHashMap<>();
        drafts.forEach((id, draft) -> operations.put(id, draft.toOperation()));
        long start = bounds[0] != Long.MIN_VALUE ? bounds[0] : firstInvocation(operations);
        long end = bounds[1] != Long.MIN_VALUE ? bounds[1] : lastCompletion(operations, start);
        return new History(operations, List.copyOf(faults), start, end, bounds[2], List.copyOf(problems));
    }

    /**
     * The lock key a force-release acted on, the token of the key it deleted ({@code null}: nothing) and the token of
     * the holder it caught.
     */
    private static FaultWindow.Deletion deletion(Map<String, Object> fields) {
        if (!fields.containsKey("lockKey")) {
            return null;
        }
        Object token = fields.get("deletedToken");
        Object caught = fields.get("caughtToken");
        return new FaultWindow.Deletion(
                String.valueOf(fields.get("lockKey")),
                token == null ? null : number(fields, "deletedToken"),
                caught == null ? null : number(fields, "caughtToken"));
    }

    private interface LineHandler {
        void accept(Map<String, Object> fields, String where);
    }

    private static void readLines(Path file, List<String> problems, LineHandler handler) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                String where = file.getFileName() + ":" + number;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    handler.accept(JsonLine.parse(line), where);
                } catch (IllegalArgumentException | ClassCastException e) {
                    // A worker killed mid-write leaves half a line; that is not the checker's business to repair.
                    problems.add(where + ": " + e.getMessage());
                }
            }
        }
    }

    private static void applyEvent(
            Map<String, Draft> drafts, Map<String, Object> fields, String where, List<String> problems) {
        String type = String.valueOf(fields.get("type"));
        String id = String.valueOf(fields.get("op"));
        long t = number(fields, "t");
        if (type.equals("invoke")) {
            if (drafts.containsKey(id)) {
                problems.add(where + ": operation " + id + " invoked twice");
                return;
            }
            drafts.put(id, new Draft(id, String.valueOf(fields.get("worker")), String.valueOf(fields.get("key")), t));
            return;
        }
        Draft draft = drafts.get(id);
        if (draft == null) {
            problems.add(where + ": " + type + " of operation " + id + " that was never invoked");
            return;
        }
        switch (type) {
            case "acquired" -> {
                draft.acquiredAt = t;
                draft.token = number(fields, "token");
            }
            case "read" -> {
                draft.readAt = t;
                draft.valueRead = number(fields, "value");
            }
            case "commit" -> draft.commitAt = t;
            case "ok" -> {
                draft.complete(Operation.Outcome.OK, t, "");
                draft.valueWritten = number(fields, "written");
            }
            case "fail" -> draft.complete(Operation.Outcome.FAIL, t, String.valueOf(fields.get("reason")));
            case "info" -> draft.complete(Operation.Outcome.INFO, t, String.valueOf(fields.get("reason")));
            case "released" -> {
                draft.releaseStartedAt = number(fields, "from");
                draft.releasedAt = t;
                if (fields.get("released") instanceof Boolean released) {
                    draft.releaseReturned = released;
                }
            }
            case "lost" -> {
                if (draft.lostAt == null) {
                    draft.lostAt = t;
                }
            }
            case "linger" -> {
                // The orchestrator's cue for a fault; it changes nothing in the operation.
            }
            default -> problems.add(where + ": unknown event " + type);
        }
    }

    private static long number(Map<String, Object> fields, String name) {
        Object value = fields.get(name);
        if (!(value instanceof Long number)) {
            throw new IllegalArgumentException("field " + name + " is not a whole number: " + value);
        }
        return number;
    }

    private static long firstInvocation(Map<String, Operation> operations) {
        return operations.values().stream()
                .mapToLong(Operation::invokedAt)
                .min()
                .orElse(0);
    }

    private static long lastCompletion(Map<String, Operation> operations, long start) {
        return operations.values().stream()
                .mapToLong(op -> op.completedAt() != null ? op.completedAt() : op.invokedAt())
                .max()
                .orElse(start);
    }

    /** An operation while its events are read. */
    private static final class Draft {
        final String id;
        final String worker;
        final String key;
        final long invokedAt;
        Long acquiredAt;
        Long token;
        Long readAt;
        Long valueRead;
        Long commitAt;
        Operation.Outcome outcome = Operation.Outcome.UNFINISHED;
        Long completedAt;
        Long valueWritten;
        String reason = "";
        Long releaseStartedAt;
        Long releasedAt;
        Boolean releaseReturned;
        Long lostAt;

        Draft(String id, String worker, String key, long invokedAt) {
            this.id = id;
            this.worker = worker;
            this.key = key;
            this.invokedAt = invokedAt;
        }

        void complete(Operation.Outcome outcome, long at, String reason) {
            this.outcome = outcome;
            this.completedAt = at;
            this.reason = reason;
        }

        Operation toOperation() {
            return new Operation(
                    id,
                    worker,
                    key,
                    invokedAt,
                    acquiredAt,
                    token,
                    readAt,
                    valueRead,
                    commitAt,
                    outcome,
                    completedAt,
                    valueWritten,
                    reason,
                    releaseStartedAt,
                    releasedAt,
                    releaseReturned,
                    lostAt);
        }
    }
}
