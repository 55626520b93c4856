package dev.fencelock.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Sinks;

/**
 * The zombie, reactive: holder A's pipeline reads the counter under its fence, then stalls (a pause
 * past its lease: its etcd traffic is black-holed, its pipeline waits on a gate). Its lease expires,
 * holder B takes the lock with a larger token, and writes and commits through R2DBC. Then A's
 * pipeline goes on and writes what it computed, under its old fence, through R2DBC: the write is
 * refused and B's data stays.
 *
 * <p>Three ways A is refused: its fence carries its lease, so the client refuses once the lease is
 * known lost (invariant 6); its fence carries no lease, so the fence table refuses it (invariant 3);
 * or, in addition, the client leaves the check to the database, so the protected table's trigger
 * refuses it, whatever the client knows.
 */
class R2dbcZombieWriterTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final List<AutoCloseable> closeables = new ArrayList<>();

    enum Refusal {
        CLIENT_KNOWS_LEASE_LOST(RefusedBy.CLIENT, true, true),
        FENCE_TABLE(RefusedBy.FENCE_TABLE, false, true),
        PROTECTED_TABLE(RefusedBy.PROTECTED_TABLE, false, false);

        final RefusedBy refusedBy;

        final boolean fenceKnowsLease;

        final boolean checkInClient;

        Refusal(RefusedBy refusedBy, boolean fenceKnowsLease, boolean checkInClient) {
            this.refusedBy = refusedBy;
            this.fenceKnowsLease = fenceKnowsLease;
            this.checkInClient = checkInClient;
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        assertThat(FencingContext.all()).isEmpty();
    }

    static Stream<Arguments> databasesAndRefusals() {
        return Stream.of(R2dbcDatabase.values())
                .flatMap(database -> Stream.of(Refusal.values()).map(refusal -> Arguments.of(database, refusal)));
    }

    @ParameterizedTest(name = "{0}, refused by {1}")
    @MethodSource("databasesAndRefusals")
    void pausedReactiveHolderIsRefusedAfterTheNextHolderCommitted(R2dbcDatabase database, Refusal refusal)
            throws Exception {
        R2dbcDatabase.Tables tables = closeLater(database.new Tables());
        String resource = "counter:" + tables.suffix;
        ConnectionFactory fenced =
                new FencedConnectionFactory(database.connectionFactory(), tables.guard(refusal.checkInClient));

        FaultProxy proxy = closeLater(FaultProxy.forEndpoint(etcd.endpoints().get(0)));
        LockClient clientA = closeLater(client(proxy.endpoint()));
        LockClient clientB = closeLater(client(etcd.endpoints().get(0)));

        // A's session lease is granted first, so that a busy machine does not spend the short lease on the grant.
        clientA.acquire(LockRequest.builder("warm-up:" + tables.suffix)
                        .leaseTtl(Duration.ofSeconds(3))
                        .build())
                .release();
        LockLease leaseA = clientA.acquire(
                LockRequest.builder(resource).leaseTtl(Duration.ofSeconds(3)).build());
        long tokenA = leaseA.fencingToken();
        Fence fenceA = new Fence(resource, tokenA, refusal.fenceKnowsLease ? leaseA : null);

        // A's pipeline: read, stall at the gate, then write what it read plus one.
        Sinks.Empty<Void> gate = Sinks.empty();
        CompletableFuture<Long> readByA = new CompletableFuture<>();
        CompletableFuture<Void> holderA = Writes.read(fenced, tables.counterTable)
                .doOnNext(readByA::complete)
                .flatMap(value -> gate.asMono().then(Writes.write(fenced, tables.counterTable, value + 1)))
                .contextWrite(Writes.under(fenceA))
                .toFuture();
        assertThat(readByA.get(30, TimeUnit.SECONDS)).isZero();

        // A stalls: no renewals reach etcd, the lease runs out.
        proxy.blackhole();

        // B waits for the lock, gets a larger token, and writes and commits under its fence.
        LockLease leaseB = closeLater(clientB.acquire(LockRequest.builder(resource)
                .leaseTtl(Duration.ofSeconds(10))
                .waitTimeout(Duration.ofSeconds(30))
                .build()));
        assertThat(leaseB.fencingToken()).isGreaterThan(tokenA);
        Writes.write(fenced, tables.counterTable, 100)
                .contextWrite(Writes.under(new Fence(resource, leaseB.fencingToken(), leaseB)))
                .block(R2dbcDatabase.HANG);

        // A wakes up and its pipeline writes.
        proxy.restore();
        gate.tryEmitEmpty();
        assertThat(holderA)
                .failsWithin(R2dbcDatabase.HANG)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOfSatisfying(FencingTokenRejectedException.class, rejection -> {
                    assertThat(rejection.refusedBy()).isEqualTo(refusal.refusedBy);
                    assertThat(rejection.getResource()).isEqualTo(resource);
                    assertThat(rejection.getToken()).isEqualTo(tokenA);
                    if (refusal != Refusal.CLIENT_KNOWS_LEASE_LOST) {
                        assertThat(rejection.getAcceptedToken()).hasValue(leaseB.fencingToken());
                    }
                });

        assertThat(tables.counter()).isEqualTo(100);
        assertThat(tables.storedToken(resource)).isEqualTo(leaseB.fencingToken());
        assertThat(leaseA.isValid()).isFalse();
    }

    private LockClient client(String endpoint) {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(endpoint)
                // A fresh client's first call sets up its channel, which took over 2 s on a loaded machine.
                .requestTimeout(Duration.ofSeconds(10))
                .build();
        return LockClient.builder(backend).build();
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        this.closeables.add(closeable);
        return closeable;
    }
}
