package dev.fencelock.integration.failover;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * A leader node in a JVM of its own, driven over standard input ("write &lt;value&gt;"; "write-blind &lt;value&gt;", whose fence
 * carries no lease; "stop")
 * and reporting on standard output ("granted &lt;token&gt;", "revoked", "write-result …").
 */
public final class LeaderNodeMain {

    private LeaderNodeMain() {}

    public static void main(String[] args) throws Exception {
        LeaderNode.Settings settings = LeaderNode.Settings.fromArguments(args);
        AnnotationConfigApplicationContext context = LeaderNode.start(settings, LeaderNodeMain::say);
        LeaderWork work = context.getBean(LeaderWork.class);
        say("ready");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("write ")) {
                    say("write-result "
                            + work.write(Long.parseLong(line.substring(6).trim())));
                } else if (line.startsWith("write-blind ")) {
                    say("write-result "
                            + work.write(Long.parseLong(line.substring(12).trim()), false));
                } else if (line.equals("stop")) {
                    break;
                }
            }
        }
        context.close();
        System.exit(0);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
