package dev.fencelock.sample.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Entry point of the reactive sample stock service. */
@SpringBootApplication
public class StockApplication {

    public static void main(String[] args) {
        SpringApplication.run(StockApplication.class, args);
    }

    /**
     * Where a reservation's hold (the slow step between its read and its write) waits. Reactor's
     * shared scheduler, which the application does not own, so it is not disposed with the context;
     * the tests put a virtual clock here to decide when a held reservation goes on.
     */
    @Bean(destroyMethod = "")
    Scheduler holdScheduler() {
        return Schedulers.parallel();
    }
}
