package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * etcd closes a client connection that sends keepalive pings while no call is open (its
 * enforcement policy does not permit pings without streams) with {@code GOAWAY ENHANCE_YOUR_CALM
 * too_many_pings}, after three such pings. A lock client is idle whenever it holds and awaits
 * nothing, so its connection must not ping then. The ping interval is shortened to grpc's minimum
 * of 10 s so that three pings fit in the test.
 */
class EtcdIdleConnectionTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final Logger grpcLogger = Logger.getLogger("io.grpc.netty.NettyClientHandler");

    private final List<String> goAways = new CopyOnWriteArrayList<>();

    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String message = String.valueOf(record.getMessage());
            if (message.contains("GOAWAY")) {
                EtcdIdleConnectionTest.this.goAways.add(message);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureGrpcWarnings() {
        this.grpcLogger.addHandler(this.capture);
    }

    @AfterEach
    void stopCapturing() {
        this.grpcLogger.removeHandler(this.capture);
    }

    @Test
    void anIdleClientIsNotSentAwayForPingingAndWorksAfterwards() throws Exception {
        EtcdLockBackend idle = EtcdLockBackend.builder()
                .endpoints(etcd.endpoints())
                .customizeClient(client -> client.keepaliveTime(Duration.ofSeconds(10)))
                .build();
        try (LockClient client = LockClient.builder(idle).build()) {
            // One call, then none: no session lease, no watch, nothing open.
            assertThat(idle.health(Duration.ofSeconds(30)).get().up()).isTrue();
            // Three ping intervals with no call open: enough for etcd's third strike.
            Thread.sleep(35_000); // an idle period is what is under test, not a wait for a condition
            assertThat(this.goAways).as("GOAWAYs received while idle").isEmpty();
            client.acquire(LockRequest.of("after-idle")).release();
        }
    }
}
