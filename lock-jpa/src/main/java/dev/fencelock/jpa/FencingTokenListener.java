package dev.fencelock.jpa;

import dev.fencelock.FencingContext;
import dev.fencelock.jdbc.FencedWrites;
import jakarta.persistence.PrePersist;
import jakarta.persistence.PreUpdate;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * JPA entity listener that writes the current fencing token into the entity's {@link
 * FencingToken} field before each insert and update. Register it with {@code
 * @EntityListeners(FencingTokenListener.class)} on every entity that has such a field (Hibernate
 * startup fails when it is missing).
 *
 * <p>Updates require a fence: without one on the thread the update is refused, because it could
 * not be fenced. Inserts take the token when there is a fence and keep the field's value
 * otherwise (seeding data outside a lock stays possible; inserts are not fenced anyway).
 */
public class FencingTokenListener {

    private static final ClassValue<List<Field>> FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
            return tokenFields(type);
        }
    };

    @PrePersist
    public void beforeInsert(Object entity) {
        if (FencingContext.writeFence().isPresent()) {
            stamp(entity);
        }
    }

    @PreUpdate
    public void beforeUpdate(Object entity) {
        stamp(entity);
    }

    private static void stamp(Object entity) {
        List<Field> fields = FIELDS.get(entity.getClass());
        if (fields.isEmpty()) {
            return;
        }
        // Throws when the thread holds no lock, or its lock is already known to be lost.
        long token = FencedWrites.token();
        for (Field field : fields) {
            try {
                field.set(entity, token);
            } catch (IllegalAccessException ex) {
                throw new IllegalStateException("Cannot set @FencingToken field " + field, ex);
            }
        }
    }

    /** The {@link FencingToken} fields of {@code type} and its superclasses, made accessible. */
    static List<Field> tokenFields(Class<?> type) {
        List<Field> fields = new ArrayList<>(1);
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            for (Field field : current.getDeclaredFields()) {
                if (field.isAnnotationPresent(FencingToken.class)) {
                    if (field.getType() != long.class && field.getType() != Long.class) {
                        throw new IllegalStateException(
                                "@FencingToken field " + field + " must be a long or Long: it holds a fencing token");
                    }
                    field.setAccessible(true);
                    fields.add(field);
                }
            }
        }
        return List.copyOf(fields);
    }
}
