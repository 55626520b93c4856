package dev.fencelock.test.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A check that passes proves something only if it fails on a lock that is broken. */
class ModelCheckFindsBrokenLocksTest {

    @Test
    void aLockWithoutMutualExclusionFailsWithATwoStepScript() {
        ModelCheck.Settings settings = new ModelCheck.Settings(200, 12, Duration.ofSeconds(60), 18L, 40, false, 200);

        ModelCheck.ScriptFailure failure = catchThrowableOfType(
                ModelCheck.ScriptFailure.class,
                () -> ModelCheck.check(InMemoryLockSystem.withoutMutualExclusion(), settings));

        // Two clients acquire one resource: the second must wait, and here it does not.
        List<Step> script = failure.script();
        assertThat(script).hasSize(2);
        assertThat(script)
                .allSatisfy(step -> assertThat(step.kind()).isIn(Step.Kind.ACQUIRE, Step.Kind.ACQUIRE_WITH_ID));
        assertThat(script.get(0).client()).isNotEqualTo(script.get(1).client());
        assertThat(script.get(0).resource()).isEqualTo(script.get(1).resource());
        assertThat(failure).hasMessageContaining("Minimal script (2 steps");
    }
}
