package dev.fencelock.sample;

import static dev.fencelock.sample.InventoryClient.problemType;
import static dev.fencelock.sample.InventoryClient.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpClientAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.http.FenceHeader;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * Two services in one test: the inventory service (this application, on real etcd and
 * PostgreSQL) and an orders service that holds {@code order:<id>} and reserves stock through the
 * inventory's HTTP API. The orders service is a second Spring context with FenceLock's HTTP client
 * auto-configuration and Boot's {@code RestClient.Builder}; a second lock client on the same etcd
 * plays its other instance. Both services share the signing keys and the fence scope.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "inventory.lock-wait-timeout=3s",
            "spring.datasource.url=${FENCELOCK_PG_URL:jdbc:postgresql://127.0.0.1:5432/fencelock}",
            "spring.datasource.username=fencelock",
            "spring.datasource.password=fencelock",
            // Expired is expired: a replayed header is refused from the second after its expiry.
            "fencelock.http.server.clock-skew=0s"
        })
class OrdersThroughInventoryTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    /** Both services' scope, a new one per run: PostgreSQL keeps the fence rows of earlier runs' etcd. */
    private static final String SCOPE = "orders-tests-" + UUID.randomUUID();

    /** The services' shared keys, new for each run: k1 is retired, k2 signs. */
    private static final String KEY_1 = randomKey();

    private static final String KEY_2 = randomKey();

    private static LockClient otherOrdersInstance;

    @DynamicPropertySource
    static void inventoryProperties(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> etcd.endpoints().get(0));
        registry.add("fencelock.fencing.scope", () -> SCOPE);
        registry.add("fencelock.http.signing.keys.k1", () -> KEY_1);
        registry.add("fencelock.http.signing.keys.k2", () -> KEY_2);
    }

    @BeforeAll
    static void startOtherOrdersInstance() {
        otherOrdersInstance = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }

    @AfterAll
    static void stopOtherOrdersInstance() {
        otherOrdersInstance.close();
    }

    @LocalServerPort
    private int port;

    @Autowired
    private JdbcClient jdbc;

    @Autowired
    private FenceGuard fenceGuard;

    @Autowired
    private LockClient inventoryLocks;

    @Autowired
    private MeterRegistry meters;

    private InventoryClient inventory;

    /** The inventory's API without FenceLock's interceptor: the header is whatever a test sets. */
    private RestClient raw;

    private InventoryDatabase database;

    private String sku;

    private String orderId;

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);

    private Level auditLevel;

    @BeforeEach
    void newSkuAndOrder() {
        this.inventory = new InventoryClient(this.port);
        this.raw = RestClient.builder()
                .baseUrl("http://127.0.0.1:" + this.port)
                .defaultStatusHandler(status -> true, (request, response) -> {})
                .build();
        this.database = new InventoryDatabase(this.jdbc, this.fenceGuard);
        this.sku = "orders-" + UUID.randomUUID();
        this.orderId = UUID.randomUUID().toString();
        SessionWarmUp.awaitLocking(this.inventoryLocks);
        assertThat(this.inventory.put(this.sku, 10).getStatusCode()).isEqualTo(HttpStatus.OK);
        this.audit.start();
        this.auditLevel = this.auditLogger.getLevel();
        this.auditLogger.setLevel(Level.DEBUG);
        this.auditLogger.addAppender(this.audit);
    }

    @AfterEach
    void stopCapturing() {
        this.auditLogger.detachAppender(this.audit);
        this.auditLogger.setLevel(this.auditLevel);
    }

    @Test
    void pausedOrdersInstanceHasItsLateReservationRefusedByTheInventorysDatabase() {
        orders().run((orders) -> {
            RestClient http = orders.getBean(RestClient.Builder.class).build();
            long stale = pausedHolderWhileAnotherReserved(orders, http);

            ResponseEntity<String> late = reserve(http, stale);

            assertThat(late.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
            assertThat(problemType(late)).isEqualTo("https://fencelock.dev/problems/stale-fencing-token");
            long newer = this.database.fenceToken("order:" + this.orderId);
            assertThat(newer).isGreaterThan(stale);
            assertThat((String) read(late, "$.detail"))
                    .contains("'order:" + this.orderId + "'", "token " + stale, "token " + newer);
            assertThat(this.database.quantity(this.sku)).isEqualTo(8);
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=accepted")
                            && line.contains("fences=\"order:" + this.orderId + "@" + newer + "\"")
                            && line.contains("keyId=k2")
                            && line.contains("caller=\"127.0.0.1\""))
                    .anyMatch(line ->
                            line.startsWith("event=http-fence outcome=rejected resource=\"order:" + this.orderId + "\"")
                                    && line.contains("token=" + stale + " acceptedToken=" + newer)
                                    && line.contains("caller=\"127.0.0.1\""));
        });
    }

    @Test
    void withoutTheFenceHeaderThePausedInstancesLateReservationIsApplied() {
        // The control: the same late call with the header turned off runs unfenced and is applied twice over.
        orders().withPropertyValues("fencelock.http.client.enabled=false").run((orders) -> {
            RestClient http = orders.getBean(RestClient.Builder.class).build();
            long stale = pausedHolderWhileAnotherReserved(orders, http);

            ResponseEntity<String> late = reserve(http, stale);

            assertThat(late.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat(this.database.quantity(this.sku)).isEqualTo(6);
        });
    }

    @Test
    void fencedOrderEndpointRefusesACallWithoutTheHeaderWith428() {
        double before = refusals("missing");

        ResponseEntity<String> call = this.raw
                .post()
                .uri("/api/orders/{order}/stock/{sku}/reservations", this.orderId, this.sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": 1}")
                .retrieve()
                .toEntity(String.class);

        assertThat(call.getStatusCode()).isEqualTo(HttpStatus.PRECONDITION_REQUIRED);
        assertThat(problemType(call)).isEqualTo("https://fencelock.dev/problems/fence-required");
        assertThat(refusals("missing")).isEqualTo(before + 1);
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
    }

    @Test
    void forgedHeaderThatRaisesTheTokenIsRefusedAndTheRealHolderGoesOn() {
        orders().run((orders) -> {
            AtomicReference<String> sent = new AtomicReference<>();
            RestClient http = recording(orders, sent);
            try (LockLease holder = orders.getBean(LockClient.class).acquire(LockRequest.of("order:" + this.orderId))) {
                try (FencingContext.Scope scope = FencingContext.open(holder)) {
                    assertThat(reserve(http).getStatusCode()).isEqualTo(HttpStatus.OK);
                }
                String forged = sent.get().replace(":" + holder.fencingToken() + ";", ":" + Long.MAX_VALUE / 2 + ";");
                assertThat(forged).isNotEqualTo(sent.get());
                double before = refusals("forged");

                assertRefused(forged, "forged");

                assertThat(refusals("forged")).isEqualTo(before + 1);
                // The forged token never reached the fence row: the real holder still writes.
                assertThat(this.database.fenceToken("order:" + this.orderId)).isEqualTo(holder.fencingToken());
                try (FencingContext.Scope scope = FencingContext.open(holder)) {
                    assertThat(reserve(http).getStatusCode()).isEqualTo(HttpStatus.OK);
                }
            }
            assertThat(this.database.quantity(this.sku)).isEqualTo(6);
        });
    }

    @Test
    void headerReplayedAfterItsExpiryIsRefused() {
        orders().withPropertyValues("fencelock.http.signing.validity=1s").run((orders) -> {
            AtomicReference<String> sent = new AtomicReference<>();
            RestClient http = recording(orders, sent);
            try (LockLease holder = orders.getBean(LockClient.class).acquire(LockRequest.of("order:" + this.orderId));
                    FencingContext.Scope scope = FencingContext.open(holder)) {
                assertThat(reserve(http).getStatusCode()).isEqualTo(HttpStatus.OK);
            }
            String captured = sent.get();
            long expiresAt = expiry(captured);
            double before = refusals("expired");

            // Waits for the header's own expiry to pass (1s of validity, rounded up to the second).
            await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().getEpochSecond() > expiresAt);
            assertRefused(captured, "expired");

            assertThat(refusals("expired")).isEqualTo(before + 1);
            assertThat(this.database.quantity(this.sku)).isEqualTo(8);
        });
    }

    @Test
    void unsignedHeaderIsRefused() {
        double before = refusals("unsigned");
        String unsigned = "v=1; scope=" + base64Url(SCOPE) + "; fences=" + base64Url("order:" + this.orderId) + ":"
                + Long.MAX_VALUE / 2;

        assertRefused(unsigned, "unsigned");

        assertThat(refusals("unsigned")).isEqualTo(before + 1);
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
        assertThat(auditLines())
                .anyMatch(line -> line.startsWith("event=http-fence outcome=refused reason=unsigned")
                        && line.contains("caller=\"127.0.0.1\""));
    }

    /**
     * Instance A takes the order's lock and is paused past its lease; the lock passes to instance
     * B, which reserves through the inventory under its newer fence. Returns A's token: A's thread,
     * woken, still works under it, as a paused process does before its client can notice the lease
     * ran out (its release here stands for the expiry).
     */
    private long pausedHolderWhileAnotherReserved(ApplicationContext orders, RestClient http) {
        LockLease paused = orders.getBean(LockClient.class).acquire(LockRequest.of("order:" + this.orderId));
        long stale = paused.fencingToken();
        paused.release();
        try (LockLease newer = otherOrdersInstance.acquire(LockRequest.of("order:" + this.orderId));
                FencingContext.Scope scope = FencingContext.open(newer)) {
            assertThat(newer.fencingToken()).isGreaterThan(stale);
            assertThat(reserve(http).getStatusCode()).isEqualTo(HttpStatus.OK);
        }
        assertThat(this.database.quantity(this.sku)).isEqualTo(8);
        return stale;
    }

    /** The late call of the paused instance: its thread's fence is the one it had before the pause. */
    private ResponseEntity<String> reserve(RestClient http, long staleToken) {
        try (FencingContext.Scope scope = FencingContext.push(new Fence("order:" + this.orderId, staleToken, null))) {
            return reserve(http);
        }
    }

    private ResponseEntity<String> reserve(RestClient http) {
        return http.post()
                .uri("http://127.0.0.1:" + this.port + "/api/stock/{sku}/reservations", this.sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": 2}")
                .retrieve()
                .onStatus(status -> true, (request, response) -> {})
                .toEntity(String.class);
    }

    private void assertRefused(String header, String reason) {
        ResponseEntity<String> call = this.raw
                .post()
                .uri("/api/stock/{sku}/reservations", this.sku)
                .header(FenceHeader.NAME, header)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": 1}")
                .retrieve()
                .toEntity(String.class);
        assertThat(call.getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
        assertThat(problemType(call)).isEqualTo("https://fencelock.dev/problems/fence-refused");
        assertThat((String) read(call, "$.reason")).isEqualTo(reason);
    }

    /** The orders service: FenceLock on the same etcd and scope, Boot's RestClient builder, signing with k2. */
    private ApplicationContextRunner orders() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHttpAutoConfiguration.class,
                        FenceLockHttpClientAutoConfiguration.class,
                        RestClientAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + etcd.endpoints().get(0),
                        "fencelock.fencing.scope=" + SCOPE,
                        "fencelock.http.signing.keys.k1=" + KEY_1,
                        "fencelock.http.signing.keys.k2=" + KEY_2,
                        "fencelock.http.signing.current-key=k2");
    }

    /** The orders service's client, which also keeps the last fence header it sent. */
    private static RestClient recording(ApplicationContext orders, AtomicReference<String> sent) {
        return orders.getBean(RestClient.Builder.class)
                .requestInterceptor((request, body, execution) -> {
                    sent.set(request.getHeaders().getFirst(FenceHeader.NAME));
                    return execution.execute(request, body);
                })
                .build();
    }

    private double refusals(String reason) {
        Counter counter = this.meters
                .find("fencelock.http.fence.refused")
                .tag("reason", reason)
                .counter();
        return (counter != null) ? counter.count() : 0;
    }

    private List<String> auditLines() {
        return this.audit.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    private static long expiry(String header) {
        Matcher exp = Pattern.compile("; exp=(\\d+);").matcher(header);
        assertThat(exp.find()).as(header).isTrue();
        return Long.parseLong(exp.group(1));
    }

    private static String base64Url(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String randomKey() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return Base64.getEncoder().encodeToString(secret);
    }
}
