package dev.fencelock.test.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a test can do to the answers of one gRPC method, in front of a server that echoes each request. */
class GrpcFaultProxyTest {

    private static final String ECHO = "test.Echo/Echo";

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    };

    private static final MethodDescriptor<byte[], byte[]> METHOD = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setFullMethodName(ECHO)
            .setType(MethodDescriptor.MethodType.UNARY)
            .setRequestMarshaller(BYTES)
            .setResponseMarshaller(BYTES)
            .build();

    /** Requests the echo server has answered. */
    private final AtomicInteger answered = new AtomicInteger();

    private Server echo;

    private GrpcFaultProxy proxy;

    private ManagedChannel channel;

    @BeforeEach
    void startProxyInFrontOfAnEchoServer() throws IOException {
        ServerCallHandler<byte[], byte[]> echoing = (call, headers) -> {
            call.request(1);
            return new ServerCall.Listener<>() {
                @Override
                public void onMessage(byte[] message) {
                    answered.incrementAndGet();
                    call.sendHeaders(new Metadata());
                    call.sendMessage(message);
                    call.close(Status.OK, new Metadata());
                }
            };
        };
        this.echo = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerServiceDefinition.builder("test.Echo")
                        .addMethod(METHOD, echoing)
                        .build())
                .build()
                .start();
        this.proxy = GrpcFaultProxy.forEndpoint("http://127.0.0.1:" + this.echo.getPort());
        int port = Integer.parseInt(
                this.proxy.endpoint().substring(this.proxy.endpoint().lastIndexOf(':') + 1));
        this.channel =
                NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        this.channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        this.proxy.close();
        this.echo.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aHeldAnswerReachesTheClientOnlyWhenReleasedAndHeldAnswersGoInTheOrderTheServerGaveThem() throws Exception {
        this.proxy.holdResponses(ECHO, 2);

        CompletableFuture<String> first = call("first");
        await().atMost(Duration.ofSeconds(10)).until(() -> this.proxy.heldResponses(ECHO) == 1);
        CompletableFuture<String> second = call("second");
        await().atMost(Duration.ofSeconds(10)).until(() -> this.proxy.heldResponses(ECHO) == 2);

        // Both requests reached the server and were answered; neither answer reached the client.
        assertThat(this.answered).hasValue(2);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();

        assertThat(this.proxy.releaseHeldResponse(ECHO)).isTrue();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
        assertThat(second).isNotDone();
        assertThat(this.proxy.heldResponses(ECHO)).isEqualTo(1);

        assertThat(this.proxy.releaseHeldResponse(ECHO)).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("second");
        assertThat(this.proxy.releaseHeldResponse(ECHO)).isFalse();
    }

    @Test
    void callsAfterTheHeldOnesAreAnsweredAtOnce() throws Exception {
        this.proxy.holdResponses(ECHO, 1);
        CompletableFuture<String> held = call("held");
        await().atMost(Duration.ofSeconds(10)).until(() -> this.proxy.heldResponses(ECHO) == 1);

        assertThat(call("next").get(10, TimeUnit.SECONDS)).isEqualTo("next");
        assertThat(held).isNotDone();

        this.proxy.releaseHeldResponse(ECHO);
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("held");
    }

    private CompletableFuture<String> call(String text) {
        CompletableFuture<String> answer = new CompletableFuture<>();
        ClientCall<byte[], byte[]> call = this.channel.newCall(METHOD, CallOptions.DEFAULT);
        call.start(
                new ClientCall.Listener<>() {
                    @Override
                    public void onMessage(byte[] message) {
                        answer.complete(new String(message, StandardCharsets.UTF_8));
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        if (!status.isOk()) {
                            answer.completeExceptionally(status.asException());
                        }
                    }
                },
                new Metadata());
        call.request(1);
        call.sendMessage(text.getBytes(StandardCharsets.UTF_8));
        call.halfClose();
        return answer;
    }
}
