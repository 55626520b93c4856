package dev.fencelock.autoconfigure.fencing;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link FenceTableInitializer} initializes databases, so Boot orders it
 * with its own initializers. Ordered last: the fence table is checked after Flyway, Liquibase and
 * SQL scripts, which may be what creates it, and before the beans that use the database.
 */
final class FenceTableInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(FenceTableInitializer.class);
    }

    /** After every detector of Boot's (order 0) and any of an application's that keep the default. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
