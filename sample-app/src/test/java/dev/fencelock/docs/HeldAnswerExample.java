package dev.fencelock.docs;

import static org.awaitility.Awaitility.await;

import dev.fencelock.test.fault.GrpcFaultProxy;
import java.time.Duration;

/** docs/testing.md, an answer that comes late: held at the proxy until the test lets it go. */
class HeldAnswerExample {

    void holdOneAnswer(GrpcFaultProxy proxy) {
        proxy.holdResponses(GrpcFaultProxy.TXN, 1);
        // ... start the request whose answer should come late
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.heldResponses(GrpcFaultProxy.TXN) == 1);
        // ... let anything happen that the late answer should overtake
        proxy.releaseHeldResponse(GrpcFaultProxy.TXN);
    }
}
