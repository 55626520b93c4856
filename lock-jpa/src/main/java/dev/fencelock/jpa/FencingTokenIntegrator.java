package dev.fencelock.jpa;

import jakarta.persistence.EntityListeners;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.HibernateException;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Finds the entities with a {@link FencingToken} field when a Hibernate session factory starts
 * and hands their tables to the {@link FencingStatementInspector}. Registered through {@code
 * META-INF/services}, so it runs for every session factory; it does nothing when no entity has
 * such a field.
 *
 * <p>It stops startup, rather than leave an entity silently unfenced, when the session factory has
 * another statement inspector, when an entity lacks {@link FencingTokenListener}, or when the field
 * maps to more than one column.
 */
public final class FencingTokenIntegrator implements Integrator {

    @Override
    public void integrate(
            Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor sessionFactory) {
        Map<String, String> fenced = new LinkedHashMap<>();
        for (PersistentClass entity : metadata.getEntityBindings()) {
            Class<?> type = entity.getMappedClass();
            if (type == null) {
                continue;
            }
            List<Field> fields = FencingTokenListener.tokenFields(type);
            for (Property property : entity.getPropertyClosure()) {
                if (fields.stream().noneMatch((field) -> field.getName().equals(property.getName()))) {
                    continue;
                }
                if (!hasListener(type)) {
                    throw new HibernateException("Entity " + type.getName() + " has a @FencingToken field but no"
                            + " @EntityListeners(FencingTokenListener.class): its token would never be written."
                            + " Add the listener to the entity.");
                }
                if (property.getColumns().size() != 1) {
                    throw new HibernateException("@FencingToken field " + type.getName() + "." + property.getName()
                            + " must map to exactly one column");
                }
                fenced.put(
                        property.getValue().getTable().getName(),
                        property.getColumns().get(0).getName());
            }
        }
        if (fenced.isEmpty()) {
            return;
        }
        StatementInspector inspector = sessionFactory.getSessionFactoryOptions().getStatementInspector();
        if (!(inspector instanceof FencingStatementInspector fencing)) {
            throw new HibernateException("Entities with @FencingToken (tables " + fenced.keySet()
                    + ") need hibernate.session_factory.statement_inspector to be a FencingStatementInspector (FenceLock's"
                    + " auto-configuration sets it unless fencelock.enabled=false), but"
                    + " it is " + inspector + ". Without it their updates are not fenced. Remove the other"
                    + " inspector, or call FencingStatementInspector from it.");
        }
        fenced.forEach(fencing::register);
    }

    private static boolean hasListener(Class<?> type) {
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            EntityListeners listeners = current.getAnnotation(EntityListeners.class);
            if (listeners != null && Arrays.asList(listeners.value()).contains(FencingTokenListener.class)) {
                return true;
            }
        }
        return false;
    }
}
