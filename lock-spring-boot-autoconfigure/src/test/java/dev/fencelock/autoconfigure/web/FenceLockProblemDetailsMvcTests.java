package dev.fencelock.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.fencelock.LockLostException;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.web.LockProblemDetailsExceptionHandler;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/** FenceLock's exceptions as a Spring MVC application's callers see them. */
class FenceLockProblemDetailsMvcTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockProblemDetailsAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(FailingController.class);

    @Test
    void staleWriteShouldBeAConflictNamingTheResourceTheTokenAndWhoRefusedIt() {
        this.runner.run((context) -> mvc(context)
                .perform(get("/stale"))
                .andExpect(status().isConflict())
                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/stale-fencing-token"))
                .andExpect(jsonPath("$.status").value(409))
                .andExpect(jsonPath("$.detail").value("Token 7 for 'stock:apple' is stale"))
                .andExpect(jsonPath("$.resource").value("stock:apple"))
                .andExpect(jsonPath("$.fencingToken").value(7))
                .andExpect(jsonPath("$.acceptedToken").value(9))
                .andExpect(jsonPath("$.refusedBy").value("database"))
                .andExpect(jsonPath("$.refusedAt").value("fence-table")));
    }

    @Test
    void lostLockShouldBeAConflictWithTheRefusalThatCameWithIt() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/lost"))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/lock-lost"))
                    .andExpect(jsonPath("$.resource").value("stock:apple"))
                    .andExpect(jsonPath("$.fencingToken").value(8))
                    .andExpect(jsonPath("$.acceptedToken").value(9))
                    .andExpect(jsonPath("$.refusedBy").value("database"));
            // Without a refused write, this instance found the loss itself.
            mvc.perform(get("/lost-alone"))
                    .andExpect(status().isConflict())
                    .andExpect(jsonPath("$.acceptedToken").doesNotExist())
                    .andExpect(jsonPath("$.refusedBy").value("client"))
                    .andExpect(jsonPath("$.refusedAt").value("client"));
        });
    }

    @Test
    void busyLockShouldBeLockedAndNameTheResource() {
        this.runner.run((context) -> mvc(context)
                .perform(get("/busy"))
                .andExpect(status().isLocked())
                .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/lock-timeout"))
                .andExpect(jsonPath("$.resource").value("stock:pear")));
    }

    @Test
    void fullQueueShouldBeTooManyRequests() {
        this.runner.run((context) -> mvc(context)
                .perform(get("/queue-full"))
                .andExpect(status().isTooManyRequests())
                .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/lock-queue-full")));
    }

    @Test
    void unavailableStoreShouldBeServiceUnavailableWithRetryAfterAndWithoutTheEndpoints() {
        this.runner
                .withPropertyValues("fencelock.problem-details.retry-after=7s")
                .run((context) -> mvc(context)
                        .perform(get("/unavailable"))
                        .andExpect(status().isServiceUnavailable())
                        .andExpect(header().string("Retry-After", "7"))
                        .andExpect(jsonPath("$.type").value("https://fencelock.dev/problems/lock-backend-unavailable"))
                        .andExpect(jsonPath("$.detail")
                                .value(org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("10.0.0.1")))));
    }

    @Test
    void applicationsOwnExceptionHandlerShouldAnswerFirst() {
        this.runner.withUserConfiguration(ApplicationLockLostHandler.class).run((context) -> {
            MockMvc mvc = mvc(context);
            mvc.perform(get("/lost"))
                    .andExpect(status().isIAmATeapot())
                    .andExpect(content().string("the application's own answer"));
            // What the application does not handle itself is still answered.
            mvc.perform(get("/stale")).andExpect(status().isConflict());
        });
    }

    @Test
    void runWhenDisabledShouldLeaveTheExceptionsUnanswered() {
        this.runner
                .withPropertyValues("fencelock.problem-details.enabled=false")
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(LockProblemDetailsExceptionHandler.class);
                    assertThatException()
                            .isThrownBy(() -> mvc(context).perform(get("/lost")))
                            .withRootCauseInstanceOf(LockLostException.class);
                });
    }

    @Test
    void runWithUserHandlerShouldBackOff() {
        LockProblemDetailsExceptionHandler own = new LockProblemDetailsExceptionHandler(Duration.ofSeconds(30));
        this.runner
                .withBean(LockProblemDetailsExceptionHandler.class, () -> own)
                .run((context) -> assertThat(context.getBean(LockProblemDetailsExceptionHandler.class))
                        .isSameAs(own));
    }

    @Test
    void runOutsideAWebApplicationShouldNotCreateTheHandler() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceLockProblemDetailsAutoConfiguration.class))
                .run((context) -> assertThat(context).doesNotHaveBean(LockProblemDetailsExceptionHandler.class));
    }

    private static MockMvc mvc(WebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }
}
