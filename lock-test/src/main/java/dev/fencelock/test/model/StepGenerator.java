package dev.fencelock.test.model;

import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.fencelock.test.model.Step.Kind;
import java.util.ArrayList;
import java.util.List;
import org.quicktheories.core.Gen;

/**
 * Generates scripts with QuickTheories. Every step draws the same five numbers (kind, client,
 * resource, request id, argument), whatever its kind, so that when QuickTheories shrinks one draw
 * the steps after it keep theirs. Each draw shrinks towards 0: the first kind of the table
 * ({@code acquire}), client {@code c1}, resource {@code r0}. The list's length shrinks by cutting
 * the tail; {@link ScriptShrinker} then removes steps from the middle, which QuickTheories' list
 * shrinking cannot.
 */
final class StepGenerator {

    static final int CLIENTS = 3;

    static final int RESOURCES = 2;

    static final int REQUEST_IDS = 3;

    /**
     * The lock commands and their weights, in table order: the first is what every step shrinks
     * to, and QuickTheories tries the last one in a whole script of it early on (all draws at their
     * maximum), so both ends are cheap. Slow commands (an expiry waits for a lease to run out) are rare.
     */
    private static final List<Weighted> LOCK_COMMANDS = List.of(
            new Weighted(Kind.ACQUIRE, 48),
            new Weighted(Kind.ACQUIRE_WITH_ID, 40),
            new Weighted(Kind.EXPIRE, 1),
            new Weighted(Kind.FORCE_RELEASE, 8),
            new Weighted(Kind.CANCEL, 20),
            new Weighted(Kind.RENEW, 20),
            new Weighted(Kind.RELEASE_ASYNC, 36),
            new Weighted(Kind.RELEASE, 60));

    /** Faults interleaved on etcd: lost answers are cheap and common, cluster faults cost seconds. */
    private static final List<Weighted> FAULTS = List.of(
            new Weighted(Kind.DROP_TXN_RESPONSE, 16),
            new Weighted(Kind.PAUSE_LEADER, 1),
            new Weighted(Kind.RESTART_MEMBER, 1));

    private record Weighted(Kind kind, int weight) {}

    private final List<Kind> table = new ArrayList<>();

    private final int members;

    /**
     * @param members etcd members that a restart may pick; 0 for a store without faults
     */
    StepGenerator(int members) {
        this.members = members;
        // Faults go in the middle of the table, away from both ends.
        List<Weighted> order = new ArrayList<>(LOCK_COMMANDS);
        if (members > 0) {
            order.addAll(2, FAULTS);
        }
        order.forEach(entry -> add(entry.kind(), entry.weight()));
    }

    /** Scripts of 1 to {@code maxSteps} steps. */
    Gen<List<Step>> scripts(int maxSteps) {
        return lists().of(steps()).ofSizeBetween(1, maxSteps);
    }

    Gen<Step> steps() {
        Gen<Integer> kinds = integers().between(0, this.table.size() - 1);
        Gen<Integer> clients = integers().between(0, CLIENTS - 1);
        Gen<Integer> resources = integers().between(0, RESOURCES - 1);
        Gen<Integer> ids = integers().between(0, REQUEST_IDS - 1);
        Gen<Integer> arguments = integers().between(0, 5);
        Gen<Step> steps = in -> {
            Kind kind = this.table.get(kinds.generate(in));
            int client = clients.generate(in);
            int resource = resources.generate(in);
            int id = ids.generate(in);
            int argument = arguments.generate(in);
            int bound = (kind == Kind.RESTART_MEMBER) ? this.members : Step.PAUSES.size();
            return new Step(kind, client, resource, id, argument % bound);
        };
        return steps.describedAs(Step::toString);
    }

    private void add(Kind kind, int weight) {
        for (int i = 0; i < weight; i++) {
            this.table.add(kind);
        }
    }
}
