package dev.fencelock.test.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension's ensemble, and the members a JVM leaves running when it exits without closing them. */
class ZooKeeperEnsembleExtensionTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    @Test
    void theEnsembleServesWhileTheClassRunsAndIsGivenAsAParameter(ZooKeeperEnsemble ensemble) {
        assertThat(ensemble).isSameAs(zookeeper.ensemble());
        assertThat(zookeeper.connectString()).isEqualTo(ensemble.connectString());
        assertThat(ensemble.members()).singleElement().satisfies(member -> {
            assertThat(member.mode()).isEqualTo("standalone");
            assertThat(ProcessHandle.of(member.pid())).isPresent();
        });
    }

    @Test
    void aJvmEndedWithoutClosingItsEnsembleStopsTheMembersItStarted() throws Exception {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String surefire = System.getProperty("surefire.test.class.path");
        String classPath = (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
        Process child = new ProcessBuilder(List.of(
                        java, "-Xmx64m", "-XX:+UseSerialGC", "-cp", classPath, EnsembleLeftOpenMain.class.getName()))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        ProcessHandle member;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertThat(line).as("the child's report of its member").startsWith("pid ");
            // The handle knows the process's start time, so it never signals another process given the same PID.
            member = ProcessHandle.of(Long.parseLong(line.substring(4))).orElseThrow();
            assertThat(member.isAlive()).isTrue();

            // SIGTERM, as an interrupted build or a timed-out fork gets: shutdown hooks run, after-all callbacks not.
            child.destroy();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> !member.isAlive());
        } finally {
            // Without the hook the member would outlive this test; it is stopped here so that it does not.
            member.destroyForcibly();
        }
    }
}
