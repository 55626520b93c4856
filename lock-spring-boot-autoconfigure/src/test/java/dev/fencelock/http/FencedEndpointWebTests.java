package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

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
import dev.fencelock.autoconfigure.http.FenceLockHttpAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpServerAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.WebApplicationContext;

/**
 * Endpoints that take their caller's fence, through Spring MVC with a fenced H2 database: which
 * requests run under which fences, what is refused before the handler runs, and the 409 of a
 * caller whose token the database already saw superseded.
 */
class FencedEndpointWebTests {

    private static final String SECRET =
            Base64.getEncoder().encodeToString("the services' shared secret.....".getBytes());

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpServerAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class))
            .withUserConfiguration(Counters.class)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.jdbc.initialize-schema=always",
                    "fencelock.http.signing.keys.k1=" + SECRET);

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);

    private Level auditLevel;

    @BeforeEach
    void captureAuditLog() {
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
    void requiredEndpointWithoutAHeaderIsRefusedWith428BeforeItRuns() {
        this.runner.run((context) -> {
            mvc(context)
                    .perform(post("/counters/c"))
                    .andExpect(status().isPreconditionRequired())
                    .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/fence-required"))
                    .andExpect(jsonPath("$.reason").value("missing"));

            assertThat(counter(context)).isZero();
            assertThat(refusals(context, "missing")).isEqualTo(1);
        });
    }

    @Test
    void trustedHeaderOpensTheCallersFencesForTheRequestOnly() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            String header = signer(context, Clock.systemUTC())
                    .header(List.of(new Fence("order:42", 1043, null), new Fence("order:43", 1044, null)));

            mvc.perform(get("/fences").header(FenceHeader.NAME, header))
                    .andExpect(content().string("order:42@1043 lease=null,order:43@1044 lease=null"));
            // MockMvc serves the request on this thread: the fences are gone with the request.
            assertThat(FencingContext.all()).isEmpty();

            mvc.perform(get("/fences"))
                    .andExpect(status().isOk())
                    .andExpect(content().string(""));
            mvc.perform(get("/plain/fences").header(FenceHeader.NAME, header))
                    .andExpect(content().string(""));
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=accepted")
                            && line.contains("fences=\"order:42@1043,order:43@1044\"")
                            && line.contains("caller=\"127.0.0.1\""));
        });
    }

    @Test
    void staleCallerIsRefusedByTheDatabaseWith409NamingTheResourceAndBothTokens() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            FenceHeaderSigner signer = signer(context, Clock.systemUTC());

            mvc.perform(post("/counters/c").header(FenceHeader.NAME, signer.header(List.of(fence(9)))))
                    .andExpect(status().isOk());
            mvc.perform(post("/counters/c").header(FenceHeader.NAME, signer.header(List.of(fence(5)))))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/stale-fencing-token"))
                    .andExpect(jsonPath("$.resource").value("order:42"))
                    .andExpect(jsonPath("$.fencingToken").value(5))
                    .andExpect(jsonPath("$.acceptedToken").value(9))
                    .andExpect(jsonPath("$.refusedBy").value("database"))
                    .andExpect(jsonPath("$.refusedAt").value("fence-table"));

            assertThat(counter(context)).isEqualTo(1);
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=rejected resource=\"order:42\"")
                            && line.contains("token=5 acceptedToken=9")
                            && line.contains("caller=\"127.0.0.1\""));
        });
    }

    @Test
    void applicationsOwnHandlerOfTheRefusalWins() {
        this.runner.withUserConfiguration(TeapotProblems.class).run((context) -> {
            MockMvc mvc = mvc(context);
            FenceHeaderSigner signer = signer(context, Clock.systemUTC());
            mvc.perform(post("/counters/c").header(FenceHeader.NAME, signer.header(List.of(fence(9)))));

            mvc.perform(post("/counters/c").header(FenceHeader.NAME, signer.header(List.of(fence(5)))))
                    .andExpect(status().isIAmATeapot());
            assertThat(auditLines()).anyMatch(line -> line.startsWith("event=http-fence outcome=rejected"));
        });
    }

    @Test
    void unsignedForgedAndExpiredHeadersAreRefusedWith403AndCountedByReason() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            String genuine = signer(context, Clock.systemUTC()).header(List.of(fence(7)));
            String unsigned = genuine.substring(0, genuine.indexOf("; sig="));
            String forged = genuine.replace(":7;", ":8;");
            String expired = signer(context, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10)))
                    .header(List.of(fence(7)));

            for (String[] refused : new String[][] {{unsigned, "unsigned"}, {forged, "forged"}, {expired, "expired"}}) {
                mvc.perform(post("/counters/c").header(FenceHeader.NAME, refused[0]))
                        .andExpect(status().isForbidden())
                        .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/fence-refused"))
                        .andExpect(jsonPath("$.reason").value(refused[1]));
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
    void configuredPathsTakeTheFenceAsTheAnnotationDoes() {
        this.runner
                .withPropertyValues(
                        "fencelock.http.server.paths=/plain/**", "fencelock.http.server.optional-paths=/open/**")
                .run((context) -> {
                    MockMvc mvc = mvc(context);
                    String header = signer(context, Clock.systemUTC()).header(List.of(fence(3)));
                    mvc.perform(get("/plain/fences")).andExpect(status().isPreconditionRequired());
                    mvc.perform(get("/plain/fences").header(FenceHeader.NAME, header))
                            .andExpect(content().string("order:42@3 lease=null"));
                    mvc.perform(get("/open/fences")).andExpect(content().string(""));
                    mvc.perform(get("/open/fences").header(FenceHeader.NAME, header))
                            .andExpect(content().string("order:42@3 lease=null"));
                });
    }

    @Test
    void withTrustByMutualTlsAnUnsignedHeaderNeedsTheCertificateTheContainerVerified() {
        this.runner.withPropertyValues("fencelock.http.server.trust=mutual-tls").run((context) -> {
            MockMvc mvc = mvc(context);
            String unsigned = FenceHeaderSigner.unsigned(null, Duration.ofSeconds(30), Clock.systemUTC())
                    .header(List.of(fence(3)));

            mvc.perform(get("/fences").header(FenceHeader.NAME, unsigned).with((request) -> {
                        request.setAttribute("jakarta.servlet.request.X509Certificate", MutualTlsTrustTests.CLIENT);
                        return request;
                    }))
                    .andExpect(status().isOk())
                    .andExpect(content().string("order:42@3 lease=null"));
            mvc.perform(post("/counters/c").header(FenceHeader.NAME, unsigned))
                    .andExpect(status().isForbidden())
                    .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/fence-refused"))
                    .andExpect(jsonPath("$.reason").value("untrusted-caller"));

            assertThat(counter(context)).isZero();
            assertThat(refusals(context, "untrusted-caller")).isEqualTo(1);
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=accepted")
                            && line.contains("keyId=- clientSubject=\"CN=fencelock-client\""))
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=refused reason=untrusted-caller")
                            && line.contains("caller=\"127.0.0.1\""));
        });
    }

    private static Fence fence(long token) {
        return new Fence("order:42", token, null);
    }

    private static FenceHeaderSigner signer(ApplicationContext context, Clock clock) {
        FenceSigningKeys receiving = context.getBean(FenceSigningKeys.class);
        assertThat(receiving.keyIds()).containsExactly("k1");
        FenceSigningKeys sending =
                new FenceSigningKeys(java.util.Map.of("k1", Base64.getDecoder().decode(SECRET)), "k1");
        return new FenceHeaderSigner(sending, null, Duration.ofSeconds(30), clock);
    }

    private static MockMvc mvc(ApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup((WebApplicationContext) context)
                .build();
    }

    private static int counter(ApplicationContext context) {
        return context.getBean(JdbcTemplate.class)
                .queryForObject("SELECT val FROM counter WHERE name = 'c'", Integer.class);
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
            return new SimpleDriverDataSource(
                    new org.h2.Driver(), "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE counter (name VARCHAR(20) PRIMARY KEY, val INT NOT NULL)");
            jdbc.update("INSERT INTO counter VALUES ('c', 0)");
            return jdbc;
        }

        @Bean
        CounterController counterController(JdbcTemplate jdbc, DataSource dataSource) {
            return new CounterController(jdbc, new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
        }
    }

    @RestController
    static class CounterController {

        private final JdbcTemplate jdbc;

        private final TransactionTemplate transactions;

        CounterController(JdbcTemplate jdbc, TransactionTemplate transactions) {
            this.jdbc = jdbc;
            this.transactions = transactions;
        }

        @FencedEndpoint
        @PostMapping("/counters/{name}")
        void add(@PathVariable String name) {
            this.transactions.executeWithoutResult(
                    (status) -> this.jdbc.update("UPDATE counter SET val = val + 1 WHERE name = ?", name));
        }

        @FencedEndpoint(optional = true)
        @GetMapping("/fences")
        String fences() {
            return describe(FencingContext.all());
        }

        @GetMapping({"/plain/fences", "/open/fences"})
        String plainFences() {
            return describe(FencingContext.all());
        }

        private static String describe(List<Fence> fences) {
            return fences.stream()
                    .map(fence -> fence.resource() + "@" + fence.token() + " lease=" + fence.lease())
                    .collect(Collectors.joining(","));
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
