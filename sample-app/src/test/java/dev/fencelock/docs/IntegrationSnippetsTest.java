package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.integration.FenceLockIntegrationAutoConfiguration;
import dev.fencelock.autoconfigure.shedlock.FenceLockShedLockAutoConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/** The snippets of docs/integrations.md do what the page says, on the in-memory backend. */
class IntegrationSnippetsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockAutoConfiguration.class,
                    FenceLockIntegrationAutoConfiguration.class,
                    FenceLockShedLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(SnippetDatabase.class);

    @Test
    void leaderReadsItsFenceFromTheGrantedEvent() {
        this.runner
                .withUserConfiguration(LeaderElectionSnippet.LeaderElectionConfiguration.class)
                .withBean(LeaderElectionSnippet.BillingLeader.class)
                .run((context) -> {
                    LeaderElectionSnippet.BillingLeader leader =
                            context.getBean(LeaderElectionSnippet.BillingLeader.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> leader.fence() != null);
                    assertThat(leader.fence().resource()).isEqualTo("integration:billing-leader");
                    assertThat(leader.fence().isValid()).isTrue();
                });
    }

    @Test
    void aGrantCarriesTheLeadersFence() {
        this.runner
                .withUserConfiguration(FencedLeaderElectionSnippet.FencedLeaderConfiguration.class)
                .run((context) -> {
                    FencedLeaderElectionSnippet.FencedLeaderConfiguration leader =
                            context.getBean(FencedLeaderElectionSnippet.FencedLeaderConfiguration.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> leader.fence() != null);
                    assertThat(leader.fence().resource()).isEqualTo("integration:billing-leader");
                    assertThat(leader.fence().isValid()).isTrue();
                });
    }

    @Test
    void schedulerLockTaskRunsUnderTheFenceOfItsLock() {
        AtomicReference<Optional<FencingContext.Fence>> seen = new AtomicReference<>();
        this.runner
                .withUserConfiguration(ShedLockSnippet.SchedulingConfiguration.class)
                .withBean(
                        ShedLockSnippet.ReminderWriter.class,
                        () -> new ShedLockSnippet.ReminderWriter(new JdbcTemplate()) {
                            @Override
                            public void writeReminders() {
                                seen.set(FencingContext.current());
                            }
                        })
                .withBean(ShedLockSnippet.InvoiceReminders.class)
                .run((context) -> {
                    context.getBean(ShedLockSnippet.InvoiceReminders.class).send();

                    assertThat(seen.get())
                            .hasValueSatisfying(
                                    fence -> assertThat(fence.resource()).isEqualTo("shedlock:invoice-reminders"));
                    assertThat(FencingContext.current()).isEmpty();
                });
    }

    /** What the snippets write to; they never get to write in these tests. */
    @Configuration(proxyBeanMethods = false)
    static class SnippetDatabase {

        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:integration-snippets");
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(DataSource dataSource) {
            return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        }
    }
}
