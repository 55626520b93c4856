package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.annotation.FencedEndpoint;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockFencingAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.TestDatabaseAccess;
import dev.fencelock.autoconfigure.http.FenceLockHttpAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpServerAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Endpoints that take their caller's fence in a WebFlux application whose handlers write to
 * PostgreSQL through a fenced {@code DataSource}, blocking, on Reactor's bounded elastic scheduler:
 * the fences reach that thread through the Reactor context and automatic context propagation, and
 * PostgreSQL's fence table refuses the stale caller.
 */
class FencedEndpointWebFluxTests {

    private static final String SECRET =
            Base64.getEncoder().encodeToString("the services' shared secret.....".getBytes());

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    private final String fenceTable = "fence_webflux_" + this.suffix;

    private final String counterTable = "counter_webflux_" + this.suffix;

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpServerAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    CodecsAutoConfiguration.class,
                    WebFluxAutoConfiguration.class))
            .withUserConfiguration(Counters.class)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.jdbc.table=" + this.fenceTable,
                    "fencelock.fencing.jdbc.initialize-schema=never",
                    "test.counter-table=" + this.counterTable,
                    "fencelock.http.signing.keys.k1=" + SECRET);

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);

    private Level auditLevel;

    @BeforeAll
    static void propagateContextAutomatically() {
        Hooks.enableAutomaticContextPropagation();
    }

    @AfterAll
    static void stopPropagatingContext() {
        Hooks.disableAutomaticContextPropagation();
    }

    @BeforeEach
    void createTablesAndCaptureAuditLog() {
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabaseAccess.postgresql());
        // The PostgreSQL DDL of docs/fencing.md, under a table name of this test's own.
        jdbc.execute("CREATE TABLE " + this.fenceTable + " (resource VARCHAR(255) NOT NULL PRIMARY KEY,"
                + " token BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL)");
        jdbc.execute("CREATE TABLE " + this.counterTable + " (name VARCHAR(20) PRIMARY KEY, val INT NOT NULL)");
        jdbc.update("INSERT INTO " + this.counterTable + " VALUES ('c', 0)");
        this.audit.start();
        this.auditLevel = this.auditLogger.getLevel();
        this.auditLogger.setLevel(Level.DEBUG);
        this.auditLogger.addAppender(this.audit);
    }

    @AfterEach
    void dropTablesAndStopCapturing() {
        this.auditLogger.detachAppender(this.audit);
        this.auditLogger.setLevel(this.auditLevel);
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabaseAccess.postgresql());
        jdbc.execute("DROP TABLE IF EXISTS " + this.counterTable);
        jdbc.execute("DROP TABLE IF EXISTS " + this.fenceTable);
    }

    @Test
    void staleCallerIsRefusedByPostgresqlWith409AndTheRowKeepsTheNewerWrite() {
        this.runner.run((context) -> {
            WebTestClient client = client(context);
            FenceHeaderSigner signer = signer(Clock.systemUTC());

            String thread = client.post()
                    .uri("/counters/c/10")
                    .header(FenceHeader.NAME, signer.header(List.of(fence(10))))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .returnResult()
                    .getResponseBody();
            assertThat(thread).startsWith("boundedElastic");
            assertThat(fenceToken(context)).isEqualTo(10);

            client.post()
                    .uri("/counters/c/9")
                    .header(FenceHeader.NAME, signer.header(List.of(fence(9))))
                    .exchange()
                    .expectStatus()
                    .isEqualTo(HttpStatus.CONFLICT)
                    .expectHeader()
                    .contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody()
                    .jsonPath("$.type")
                    .isEqualTo("https://fencelock.dev/problems/stale-fencing-token")
                    .jsonPath("$.resource")
                    .isEqualTo("order:42")
                    .jsonPath("$.fencingToken")
                    .isEqualTo(9)
                    .jsonPath("$.acceptedToken")
                    .isEqualTo(10)
                    .jsonPath("$.refusedBy")
                    .isEqualTo("database")
                    .jsonPath("$.refusedAt")
                    .isEqualTo("fence-table");

            assertThat(counter(context)).isEqualTo(10);
            assertThat(fenceToken(context)).isEqualTo(10);
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=accepted")
                            && line.contains("fences=\"order:42@10\"")
                            && line.contains("keyId=k1"))
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=rejected resource=\"order:42\"")
                            && line.contains("token=9 acceptedToken=10"));
        });
    }

    @Test
    void requiredEndpointsWithoutAHeaderAreRefusedWith428BeforeTheyRun() {
        this.runner.withPropertyValues("fencelock.http.server.paths=/plain/**").run((context) -> {
            WebTestClient client = client(context);
            for (String uri : List.of("/counters/c/5", "/plain/counters/c/5")) {
                client.post()
                        .uri(uri)
                        .exchange()
                        .expectStatus()
                        .isEqualTo(HttpStatus.PRECONDITION_REQUIRED)
                        .expectBody()
                        .jsonPath("$.type")
                        .isEqualTo("https://fencelock.dev/problems/fence-required")
                        .jsonPath("$.reason")
                        .isEqualTo("missing");
            }
            assertThat(counter(context)).isZero();
            assertThat(refusals(context, "missing")).isEqualTo(2);
        });
    }

    @Test
    void unsignedForgedAndExpiredHeadersAreRefusedWith403AndCountedByReason() {
        this.runner.run((context) -> {
            WebTestClient client = client(context);
            String genuine = signer(Clock.systemUTC()).header(List.of(fence(7)));
            String unsigned = genuine.substring(0, genuine.indexOf("; sig="));
            String forged = genuine.replace(":7;", ":8;");
            String expired = signer(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10)))
                    .header(List.of(fence(7)));

            for (String[] refused : new String[][] {{unsigned, "unsigned"}, {forged, "forged"}, {expired, "expired"}}) {
                client.post()
                        .uri("/counters/c/7")
                        .header(FenceHeader.NAME, refused[0])
                        .exchange()
                        .expectStatus()
                        .isForbidden()
                        .expectBody()
                        .jsonPath("$.type")
                        .isEqualTo("https://fencelock.dev/problems/fence-refused")
                        .jsonPath("$.reason")
                        .isEqualTo(refused[1]);
                assertThat(refusals(context, refused[1])).isEqualTo(1);
            }
            assertThat(counter(context)).isZero();
            assertThat(auditLines())
                    .filteredOn(line -> line.startsWith("event=http-fence outcome=refused"))
                    .hasSize(3)
                    .noneMatch(line -> line.contains("sig="));
        });
    }

    @Test
    void optionalEndpointsRunUnfencedWithoutAHeaderAndOthersIgnoreIt() {
        this.runner
                .withPropertyValues("fencelock.http.server.optional-paths=/open/**")
                .run((context) -> {
                    WebTestClient client = client(context);
                    String header = signer(Clock.systemUTC()).header(List.of(fence(3)));

                    assertThat(fences(client, "/fences", header)).isEqualTo("order:42@3 lease=null");
                    assertThat(fences(client, "/fences", null)).isEqualTo("none");
                    assertThat(fences(client, "/open/fences", header)).isEqualTo("order:42@3 lease=null");
                    assertThat(fences(client, "/plain/fences", header)).isEqualTo("none");
                });
    }

    @Test
    void applicationsOwnHandlerOfTheRefusalWins() {
        this.runner.withUserConfiguration(TeapotProblems.class).run((context) -> {
            WebTestClient client = client(context);
            FenceHeaderSigner signer = signer(Clock.systemUTC());
            client.post()
                    .uri("/counters/c/10")
                    .header(FenceHeader.NAME, signer.header(List.of(fence(10))))
                    .exchange()
                    .expectStatus()
                    .isOk();

            client.post()
                    .uri("/counters/c/9")
                    .header(FenceHeader.NAME, signer.header(List.of(fence(9))))
                    .exchange()
                    .expectStatus()
                    .isEqualTo(HttpStatus.I_AM_A_TEAPOT);
            assertThat(counter(context)).isEqualTo(10);
        });
    }

    private static String fences(WebTestClient client, String uri, String header) {
        return client.get()
                .uri(uri)
                .headers(headers -> {
                    if (header != null) {
                        headers.set(FenceHeader.NAME, header);
                    }
                })
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
    }

    private static Fence fence(long token) {
        return new Fence("order:42", token, null);
    }

    static FenceHeaderSigner signer(Clock clock) {
        FenceSigningKeys sending =
                new FenceSigningKeys(Map.of("k1", Base64.getDecoder().decode(SECRET)), "k1");
        return new FenceHeaderSigner(sending, null, Duration.ofSeconds(30), clock);
    }

    private static WebTestClient client(ApplicationContext context) {
        return WebTestClient.bindToApplicationContext(context).build();
    }

    private int counter(ApplicationContext context) {
        return context.getBean(JdbcTemplate.class)
                .queryForObject("SELECT val FROM " + this.counterTable + " WHERE name = 'c'", Integer.class);
    }

    private long fenceToken(ApplicationContext context) {
        return context.getBean(JdbcTemplate.class)
                .queryForObject("SELECT token FROM " + this.fenceTable + " WHERE resource = 'order:42'", Long.class);
    }

    private static double refusals(ApplicationContext context, String reason) {
        return context.getBean(MeterRegistry.class)
                .get("fencelock.http.fence.refused")
                .tag("reason", reason)
                .counter()
                .count();
    }

    private List<String> auditLines() {
        return this.audit.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    @Configuration(proxyBeanMethods = false)
    static class Counters {

        @Bean
        DataSource dataSource() {
            return TestDatabaseAccess.postgresql();
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        CounterController counterController(
                JdbcTemplate jdbc, DataSource dataSource, org.springframework.core.env.Environment environment) {
            return new CounterController(
                    jdbc,
                    new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
                    environment.getRequiredProperty("test.counter-table"));
        }
    }

    @RestController
    static class CounterController {

        private final JdbcTemplate jdbc;

        private final TransactionTemplate transactions;

        private final String table;

        CounterController(JdbcTemplate jdbc, TransactionTemplate transactions, String table) {
            this.jdbc = jdbc;
            this.transactions = transactions;
            this.table = table;
        }

        /** A blocking write moved off the request's thread, as reactive handlers do: the fence must follow it. */
        @FencedEndpoint
        @PostMapping("/counters/{name}/{value}")
        Mono<String> set(@PathVariable String name, @PathVariable int value) {
            return write(name, value);
        }

        @PostMapping("/plain/counters/{name}/{value}")
        Mono<String> setPlain(@PathVariable String name, @PathVariable int value) {
            return write(name, value);
        }

        private Mono<String> write(String name, int value) {
            return Mono.fromCallable(() -> {
                        this.transactions.executeWithoutResult((status) ->
                                this.jdbc.update("UPDATE " + this.table + " SET val = ? WHERE name = ?", value, name));
                        return Thread.currentThread().getName();
                    })
                    .subscribeOn(Schedulers.boundedElastic());
        }

        @FencedEndpoint(optional = true)
        @GetMapping("/fences")
        Mono<String> fences() {
            return describeElsewhere();
        }

        @GetMapping({"/plain/fences", "/open/fences"})
        Mono<String> plainFences() {
            return describeElsewhere();
        }

        private static Mono<String> describeElsewhere() {
            return Mono.fromCallable(() -> FencingContext.all().stream()
                            .map(fence -> fence.resource() + "@" + fence.token() + " lease=" + fence.lease())
                            .collect(Collectors.collectingAndThen(
                                    Collectors.joining(","), (all) -> all.isEmpty() ? "none" : all)))
                    .subscribeOn(Schedulers.boundedElastic());
        }
    }

    @RestControllerAdvice
    static class TeapotProblems {

        @ExceptionHandler
        ResponseEntity<String> stale(FencingTokenRejectedException ex) {
            return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body(ex.getMessage());
        }
    }
}
