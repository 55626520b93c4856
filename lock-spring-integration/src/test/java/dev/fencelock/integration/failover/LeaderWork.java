package dev.fencelock.integration.failover;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.integration.FenceLockRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * What a leader does: on {@link OnGrantedEvent} it reads its fence from the registry, and its
 * writes to the database present that fence, so a former leader's late write is refused.
 */
final class LeaderWork {

    private final FenceLockRegistry registry;

    private final DataSource fenced;

    private final String counterTable;

    private final LeaderNode.Reporter reporter;

    private volatile FencingContext.@Nullable Fence fence;

    LeaderWork(FenceLockRegistry registry, DataSource fenced, String counterTable, LeaderNode.Reporter reporter) {
        this.registry = registry;
        this.fenced = fenced;
        this.counterTable = counterTable;
        this.reporter = reporter;
    }

    @EventListener
    void granted(OnGrantedEvent event) {
        FencingContext.Fence granted =
                this.registry.obtain(event.getRole()).fence().orElseThrow();
        this.fence = granted;
        this.reporter.report("granted " + granted.token());
    }

    @EventListener
    void revoked(OnRevokedEvent event) {
        this.reporter.report("revoked");
    }

    /** Writes {@code value} under the fence of the last grant: "written", or "refused" and why. */
    String write(long value) {
        return write(value, true);
    }

    /**
     * Writes like {@link #write(long)}; without {@code knowsLease} the fence carries no lease, as
     * for a holder that is wrong about its lease, so only the database can refuse the write.
     */
    String write(long value, boolean knowsLease) {
        FencingContext.Fence granted = this.fence;
        if (granted == null) {
            return "refused never led";
        }
        FencingContext.Fence current =
                knowsLease ? granted : new FencingContext.Fence(granted.resource(), granted.token(), null);
        try (FencingContext.Scope scope = FencingContext.push(current);
                Connection connection = this.fenced.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE " + this.counterTable + " SET val = ? WHERE name = 'c'")) {
                update.setLong(1, value);
                update.executeUpdate();
                connection.commit();
                return "written";
            } catch (SQLException | RuntimeException ex) {
                connection.rollback();
                throw ex;
            }
        } catch (FencingTokenRejectedException ex) {
            return "refused " + ex.getMessage().replace('\n', ' ');
        } catch (SQLException ex) {
            return "failed " + ex;
        }
    }
}
