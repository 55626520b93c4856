package dev.fencelock.docs;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

/** docs/spring-boot.md, "Fences on other threads": the decorator that carries the fence to @Async work. */
@Configuration(proxyBeanMethods = false)
class ContextPropagationSnippet {

    @Bean
    ContextPropagatingTaskDecorator contextPropagatingTaskDecorator() {
        return new ContextPropagatingTaskDecorator();
    }
}
