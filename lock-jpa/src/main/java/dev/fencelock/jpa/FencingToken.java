package dev.fencelock.jpa;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the {@code long}/{@code Long} field of a JPA entity that holds the fencing token of the
 * lock holder that last wrote the row.
 *
 * <pre>{@code
 * @Entity
 * @EntityListeners(FencingTokenListener.class)
 * class Stock {
 *     @Id String sku;
 *     int quantity;
 *     @FencingToken long fenceToken;     // column: BIGINT NOT NULL DEFAULT 0
 * }
 * }</pre>
 *
 * <p>Under {@code @DistributedLock}, {@link FencingTokenListener} sets the field to the token of
 * the thread's innermost lock before each insert and update, and {@link FencingStatementInspector}
 * adds {@code AND fence_token <= <token>} to the entity's {@code UPDATE}. A holder whose token is
 * lower than the one stored in the row therefore changes nothing, and the update is reported as a
 * {@link dev.fencelock.FencingTokenRejectedException}. Equal tokens match: one holder may update
 * its rows many times.
 *
 * <p>The column must be {@code NOT NULL} (start it at 0): {@code NULL <= ?} matches nothing.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface FencingToken {}
