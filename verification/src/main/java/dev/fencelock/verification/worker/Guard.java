package dev.fencelock.verification.worker;

/** How a run's workers fence their writes. */
public enum Guard {

    /** The client's guard presents each fence to the fence table before the first write; no table has a trigger. */
    CLIENT("fenced", "on"),

    /**
     * The run's tables are protected, and the client's guard is off ({@code checkInClient(false)}): it only puts the
     * fence in the session and refuses what it knows is lost, and the tables' triggers check the fence.
     */
    TRIGGERS_ONLY("triggers", "triggers only"),

    /** No fencing at all: the workers write through the pool directly. The control runs. */
    OFF("control", "**off**");

    private final String runPrefix;
    private final String label;

    Guard(String runPrefix, String label) {
        this.runPrefix = runPrefix;
        this.label = label;
    }

    /** The first part of a run's name, such as {@code triggers} in {@code triggers-zombie}. */
    public String runPrefix() {
        return runPrefix;
    }

    /** The guard as the results tables show it. */
    public String label() {
        return label;
    }
}
