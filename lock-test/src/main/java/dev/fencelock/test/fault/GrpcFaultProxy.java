package dev.fencelock.test.fault;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.HandlerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A gRPC-level proxy in front of one etcd member, listening on 127.0.0.1. Every call is forwarded
 * unchanged, as raw bytes, except that a test can pick the next calls of one method and
 * <ul>
 *   <li>{@link #refuse} them: answer with a status of its choice without reaching etcd, the way
 *       etcd itself refuses a request it never proposed (for example {@code RESOURCE_EXHAUSTED:
 *       etcdserver: too many requests} when its apply falls behind its commits);
 *   <li>{@link #stall} them: never forward and never answer, like a member that lost its leader;
 *   <li>{@link #dropResponses} of them: forward, but never pass the answer back, so a write is
 *       applied without the client learning it;
 *   <li>{@link #delayResponses} of them: forward, and pass the answer back a fixed time later;
 *   <li>{@link #holdResponses} of them: forward, and keep the answer back until the test passes it
 *       on with {@link #releaseHeldResponse}, so a test decides exactly what a late answer overtakes;
 * </ul>
 * and {@link #endCalls} ends every open call of a method with status OK, the way a server ends a
 * stream.
 *
 * <p>Where {@link FaultProxy} cuts bytes, this one answers in the protocol, so the client sees
 * exactly what it would see from an overloaded etcd.
 */
public final class GrpcFaultProxy implements AutoCloseable {

    /** etcd's Txn method, as gRPC names it. */
    public static final String TXN = "etcdserverpb.KV/Txn";

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

    private final ManagedChannel upstream;

    private final Server server;

    private final Map<String, Refusal> refusals = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> refused = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> stalls = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> drops = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> stalled = new ConcurrentHashMap<>();

    private final Map<String, Delay> delays = new ConcurrentHashMap<>();

    private final java.util.concurrent.ScheduledExecutorService delayer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "grpc-fault-proxy-delay");
                thread.setDaemon(true);
                return thread;
            });

    private record Delay(AtomicInteger count, long nanos) {}

    private final Map<String, AtomicInteger> holds = new ConcurrentHashMap<>();

    /** Answers kept back by {@link #holdResponses}, each complete from etcd, oldest first, by method. */
    private final Map<String, java.util.concurrent.ConcurrentLinkedQueue<Runnable>> heldAnswers =
            new ConcurrentHashMap<>();

    private final Map<String, Set<Runnable>> openCalls = new ConcurrentHashMap<>();

    private GrpcFaultProxy(String endpoint) {
        URI uri = URI.create(endpoint);
        this.upstream = NettyChannelBuilder.forAddress(uri.getHost(), uri.getPort())
                .usePlaintext()
                .build();
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .fallbackHandlerRegistry(new Forwarding())
                .build();
        try {
            this.server.start();
        } catch (IOException ex) {
            this.upstream.shutdownNow();
            throw new UncheckedIOException("Could not start a gRPC proxy for " + endpoint, ex);
        }
    }

    /** Starts a proxy for the etcd client endpoint {@code endpoint} ({@code http://127.0.0.1:port}). */
    public static GrpcFaultProxy forEndpoint(String endpoint) {
        return new GrpcFaultProxy(endpoint);
    }

    /** The endpoint clients should use instead of the member's. */
    public String endpoint() {
        return "http://127.0.0.1:" + this.server.getPort();
    }

    /**
     * Answers the next {@code count} calls of {@code method} (such as {@link #TXN}) with {@code
     * status}; they never reach etcd.
     */
    public void refuse(String method, int count, Status status) {
        this.refusals.put(method, new Refusal(new AtomicInteger(count), status));
    }

    /** Answers every call of {@code method} with {@code status} until {@link #forward} is called. */
    public void refuseAll(String method, Status status) {
        refuse(method, Integer.MAX_VALUE, status);
    }

    /** Neither forwards nor answers the next {@code count} calls of {@code method}. */
    public void stall(String method, int count) {
        this.stalls.put(method, new AtomicInteger(count));
    }

    /** Forwards the next {@code count} calls of {@code method} but never passes their answers back. */
    public void dropResponses(String method, int count) {
        this.drops.put(method, new AtomicInteger(count));
    }

    /**
     * Forwards the next {@code count} calls of {@code method} and passes their answers back only
     * {@code delay} after they came: a write applied in time, whose answer arrives late.
     */
    public void delayResponses(String method, int count, java.time.Duration delay) {
        this.delays.put(method, new Delay(new AtomicInteger(count), delay.toNanos()));
    }

    /**
     * Forwards the next {@code count} calls of {@code method} and keeps each answer back, once etcd
     * has given it in full, until {@link #releaseHeldResponse} passes it on: a write applied in time
     * whose answer arrives exactly when the test says, after whatever the test let happen meanwhile.
     * {@link #heldResponses} tells when etcd has answered. The client's own timeouts still run: an
     * answer held past them reaches a caller that has given up. Answers still held when the proxy
     * closes are never passed on.
     */
    public void holdResponses(String method, int count) {
        this.holds.put(method, new AtomicInteger(count));
    }

    /** How many answers of {@code method} are held back right now ({@link #holdResponses}). */
    public int heldResponses(String method) {
        java.util.Queue<Runnable> held = this.heldAnswers.get(method);
        return (held != null) ? held.size() : 0;
    }

    /**
     * Passes the oldest held answer of {@code method} back to the client (in the order etcd gave
     * them), and returns once it is handed to the client's connection.
     *
     * @return whether an answer was held
     */
    public boolean releaseHeldResponse(String method) {
        java.util.Queue<Runnable> held = this.heldAnswers.get(method);
        Runnable answer = (held != null) ? held.poll() : null;
        if (answer == null) {
            return false;
        }
        answer.run();
        return true;
    }

    /**
     * Ends every open call of {@code method} (for example {@code etcdserverpb.Watch/Watch}) with
     * status OK and cancels its upstream side, as a server ending a stream without an error.
     *
     * @return how many calls were ended
     */
    public int endCalls(String method) {
        Set<Runnable> open = this.openCalls.getOrDefault(method, Set.of());
        int ended = 0;
        for (Runnable end : List.copyOf(open)) {
            end.run();
            ended++;
        }
        return ended;
    }

    /** Forwards {@code method} again. */
    public void forward(String method) {
        this.refusals.remove(method);
    }

    /** How many calls of {@code method} this proxy held without forwarding them ({@link #stall}). */
    public int stalledCalls(String method) {
        AtomicInteger count = this.stalled.get(method);
        return (count != null) ? count.get() : 0;
    }

    /** How many calls of {@code method} this proxy answered itself. */
    public int refusedCalls(String method) {
        AtomicInteger count = this.refused.get(method);
        return (count != null) ? count.get() : 0;
    }

    /**
     * Connects to the member again at once, instead of after gRPC's reconnect back-off (up to
     * minutes once it grew), and waits until the connection is up. A member that was restarted is
     * otherwise unreachable through this proxy for a while after it became healthy.
     *
     * @return whether the connection is up within {@code timeout}
     */
    public boolean reconnect(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectivityState state = this.upstream.getState(true);
        while (state != ConnectivityState.READY) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            CountDownLatch changed = new CountDownLatch(1);
            this.upstream.notifyWhenStateChanged(state, changed::countDown);
            if (state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.IDLE) {
                this.upstream.resetConnectBackoff();
            }
            try {
                changed.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
            state = this.upstream.getState(true);
        }
        return true;
    }

    @Override
    public void close() {
        this.delayer.shutdownNow();
        this.server.shutdownNow();
        this.upstream.shutdownNow();
        try {
            this.server.awaitTermination(5, TimeUnit.SECONDS);
            this.upstream.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private @Nullable Status takeRefusal(String method) {
        Refusal refusal = this.refusals.get(method);
        if (refusal == null || !take(refusal.left())) {
            return null;
        }
        this.refused.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
        return refusal.status();
    }

    /** Whether one of the calls still to be picked is left, counting it down. */
    private static boolean take(@Nullable AtomicInteger left) {
        return left != null && left.getAndDecrement() > 0;
    }

    private record Refusal(AtomicInteger left, Status status) {}

    /** Serves every method by forwarding it, whatever its name and message types. */
    private final class Forwarding extends HandlerRegistry {

        @Override
        public ServerMethodDefinition<?, ?> lookupMethod(String methodName, @Nullable String authority) {
            MethodDescriptor<byte[], byte[]> method = MethodDescriptor.<byte[], byte[]>newBuilder()
                    .setFullMethodName(methodName)
                    .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                    .setRequestMarshaller(BYTES)
                    .setResponseMarshaller(BYTES)
                    .build();
            return ServerMethodDefinition.create(method, new ForwardingHandler(method));
        }
    }

    private final class ForwardingHandler implements ServerCallHandler<byte[], byte[]> {

        private final MethodDescriptor<byte[], byte[]> method;

        ForwardingHandler(MethodDescriptor<byte[], byte[]> method) {
            this.method = method;
        }

        @Override
        public ServerCall.Listener<byte[]> startCall(ServerCall<byte[], byte[]> call, Metadata headers) {
            Status refusal = takeRefusal(this.method.getFullMethodName());
            if (refusal != null) {
                call.close(refusal, new Metadata());
                return new ServerCall.Listener<>() {};
            }
            if (take(stalls.get(this.method.getFullMethodName()))) {
                stalled.computeIfAbsent(this.method.getFullMethodName(), name -> new AtomicInteger())
                        .incrementAndGet();
                return new ServerCall.Listener<>() {}; // open until the client gives up or the proxy closes
            }
            boolean dropResponse = take(drops.get(this.method.getFullMethodName()));
            Delay delay = delays.get(this.method.getFullMethodName());
            long delayNanos = (delay != null && take(delay.count())) ? delay.nanos() : 0;
            String name = this.method.getFullMethodName();
            boolean holdResponse = !dropResponse && delayNanos == 0 && take(holds.get(name));
            boolean keepBack = delayNanos > 0 || holdResponse;
            // Answers of a delayed or held call are replayed, in order, once the delay is over or the test says.
            List<Runnable> answer = new java.util.ArrayList<>();
            Set<Runnable> open =
                    openCalls.computeIfAbsent(this.method.getFullMethodName(), m -> ConcurrentHashMap.newKeySet());
            ClientCall<byte[], byte[]> forwarded = upstream.newCall(this.method, CallOptions.DEFAULT);
            // A ServerCall and a ClientCall may each be used by one thread at a time.
            Object serverSide = new Object();
            Object clientSide = new Object();
            java.util.concurrent.atomic.AtomicBoolean serverClosed = new java.util.concurrent.atomic.AtomicBoolean();
            forwarded.start(
                    new ClientCall.Listener<>() {
                        @Override
                        public void onHeaders(Metadata upstreamHeaders) {
                            if (dropResponse) {
                                return;
                            }
                            answer(() -> {
                                synchronized (serverSide) {
                                    call.sendHeaders(upstreamHeaders);
                                }
                            });
                        }

                        @Override
                        public void onMessage(byte[] message) {
                            if (dropResponse) {
                                return;
                            }
                            answer(() -> {
                                synchronized (serverSide) {
                                    call.sendMessage(message);
                                }
                            });
                            synchronized (clientSide) {
                                forwarded.request(1);
                            }
                        }

                        @Override
                        public void onClose(Status status, Metadata trailers) {
                            if (dropResponse) {
                                return; // the client never hears of it
                            }
                            answer(() -> {
                                if (serverClosed.compareAndSet(false, true)) { // unless the proxy ended the call
                                    synchronized (serverSide) {
                                        call.close(status, trailers);
                                    }
                                }
                            });
                            List<Runnable> steps = List.copyOf(answer);
                            // The client may have cancelled the call meanwhile: then the answer goes nowhere.
                            Runnable replay = () -> {
                                try {
                                    steps.forEach(Runnable::run);
                                } catch (IllegalStateException callGone) {
                                    // already closed on the client's side
                                }
                            };
                            if (delayNanos > 0) {
                                delayer.schedule(replay, delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
                            } else if (holdResponse) {
                                heldAnswers
                                        .computeIfAbsent(name, m -> new java.util.concurrent.ConcurrentLinkedQueue<>())
                                        .add(replay);
                            }
                        }

                        private void answer(Runnable step) {
                            if (keepBack) {
                                answer.add(step);
                            } else {
                                step.run();
                            }
                        }
                    },
                    headers);
            Runnable end = new Runnable() {
                @Override
                public void run() {
                    open.remove(this);
                    if (serverClosed.compareAndSet(false, true)) {
                        synchronized (serverSide) {
                            call.close(Status.OK, new Metadata());
                        }
                    }
                    synchronized (clientSide) {
                        forwarded.cancel("ended by the proxy", null);
                    }
                }
            };
            open.add(end);
            synchronized (clientSide) {
                forwarded.request(1);
            }
            synchronized (serverSide) {
                call.request(1);
            }
            return new ServerCall.Listener<>() {
                @Override
                public void onMessage(byte[] message) {
                    synchronized (clientSide) {
                        forwarded.sendMessage(message);
                    }
                    synchronized (serverSide) {
                        call.request(1);
                    }
                }

                @Override
                public void onHalfClose() {
                    synchronized (clientSide) {
                        forwarded.halfClose();
                    }
                }

                @Override
                public void onComplete() {
                    open.remove(end);
                }

                @Override
                public void onCancel() {
                    open.remove(end);
                    synchronized (clientSide) {
                        forwarded.cancel("the client cancelled", null);
                    }
                }
            };
        }
    }
}
