package dev.fencelock.test.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProcessControlTest {

    private Process sleeper;

    @BeforeEach
    void startAProcessThatWaits() throws IOException {
        sleeper = new ProcessBuilder("sleep", "60").start();
    }

    @AfterEach
    void endIt() throws InterruptedException {
        sleeper.destroyForcibly();
        sleeper.waitFor(5, TimeUnit.SECONDS);
    }

    @Test
    void pausesAndResumesAProcess() {
        ProcessControl.pause(sleeper.pid());

        await("process stopped").atMost(Duration.ofSeconds(30)).until(() -> schedulerState(sleeper.pid()) == 'T');

        ProcessControl.resume(sleeper.pid());

        await("process running again").atMost(Duration.ofSeconds(30)).until(() -> schedulerState(sleeper.pid()) != 'T');
        assertThat(sleeper.isAlive()).isTrue();
    }

    @Test
    void killsAPausedProcess() throws InterruptedException {
        ProcessControl.pause(sleeper.pid());

        ProcessControl.kill(sleeper.pid());

        assertThat(sleeper.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(sleeper.exitValue()).isEqualTo(128 + 9);
    }

    @Test
    void explainsAFailedSignal() {
        // Linux PIDs stay below 2^22, so no process has this one, unlike a reaped PID that may have been reused.
        long impossiblePid = Integer.MAX_VALUE;

        assertThatThrownBy(() -> ProcessControl.pause(impossiblePid))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kill -STOP " + impossiblePid);
    }

    @Test
    void refusesProcessGroupIds() {
        assertThatThrownBy(() -> ProcessControl.kill(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcessControl.kill(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The state letter from {@code /proc/<pid>/stat}: {@code T} for a stopped process. */
    private static char schedulerState(long pid) throws IOException {
        // Read line by line: procfs reports a size of 0, which whole-file reads can take at its word.
        String stat = String.join("\n", Files.readAllLines(Path.of("/proc", Long.toString(pid), "stat")));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
