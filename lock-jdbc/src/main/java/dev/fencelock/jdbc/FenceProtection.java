package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The database's own fence: the DDL that makes a table refuse a write whose fence is older than
 * the fence table's, or that carries none, whatever SQL it arrives in and from whichever client.
 *
 * <p>A trigger on each protected table, on every {@code INSERT}, {@code UPDATE} and {@code DELETE}
 * (and PostgreSQL's {@code TRUNCATE}), reads the fences that the client put in the session for the
 * current transaction ({@link SessionFence}) and runs the fence table's conditional upsert for each
 * of them, inside the writing transaction, so the fence row stays locked until it ends:
 *
 * <ul>
 *   <li>PostgreSQL: a PL/pgSQL trigger function reads {@code fencelock.fence}, which the client sets
 *       with {@code set_config(…, true)}: it ends with the transaction, whatever ends it;
 *   <li>MariaDB: a procedure called by the triggers reads {@code @fencelock_fence}, a session
 *       variable; the client sets it for each transaction and clears it before the connection goes
 *       back to its pool or to code without the fence;
 *   <li>H2: {@link H2FenceTrigger}, which pairs the fence with the transaction that set it.
 * </ul>
 *
 * <p>Refusals carry SQLSTATE {@value #NO_FENCE} (no fence), {@value #STALE} (an older token than the
 * fence table's; the client maps it to {@link dev.fencelock.FencingTokenRejectedException}) or
 * {@value #NESTED} (a transaction nested in a fenced one on the same thread); on MariaDB {@code
 * 45F01}, {@code 45F02}, {@code 45F03}. A session that sets {@code fencelock.bypass} (PostgreSQL, also
 * per role with {@code ALTER ROLE … SET}), {@code @fencelock_bypass} (MariaDB) or {@code
 * @FENCELOCK_BYPASS} (H2) to {@code 'on'} writes unchecked: the documented way for migrations and
 * back-office tools, never set by FenceLock.
 */
public final class FenceProtection {

    private static final Pattern STALE_MESSAGE = Pattern.compile("fencelock: stale -?\\d+ < (\\d+)");

    /** SQLSTATE of a write that carries no fence (MariaDB: {@code 45F01}). */
    public static final String NO_FENCE = "FL001";

    /** SQLSTATE of a write whose fence is older than the fence table's (MariaDB: {@code 45F02}). */
    public static final String STALE = "FL002";

    /** SQLSTATE of a write from a transaction nested in a fenced one of the same thread (MariaDB: {@code 45F03}). */
    public static final String NESTED = "FL003";

    /** {@link H2FenceTrigger}'s name, as text: H2 is optional, and the class must not load without it. */
    static final String H2_TRIGGER = "dev.fencelock.jdbc.H2FenceTrigger";

    private static final Pattern IDENTIFIER =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private FenceProtection() {}

    /**
     * The statements that protect {@code table} with {@code fence} on a database of {@code dialect},
     * for a migration (Flyway, Liquibase) or for {@link FenceGuard#protectTables}. Safe to run again:
     * every object is created or replaced.
     *
     * @param table a plain identifier, optionally {@code schema.table}
     * @throws IllegalArgumentException when {@code table} is not a plain identifier
     */
    public static List<String> ddl(FenceDialect dialect, FenceTable fence, String table) {
        checkName(table);
        return switch (dialect) {
            case POSTGRESQL -> postgresql(fence, table);
            case MARIADB -> mariadb(fence, table);
            case H2 -> h2(fence, table);
        };
    }

    /** @throws IllegalArgumentException when {@code table} is not a plain identifier, optionally {@code schema.table} */
    static void checkName(String table) {
        if (!IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("Protected table '" + table + "' is not a plain identifier (letters,"
                    + " digits and '_', optionally prefixed by 'schema.')");
        }
    }

    /** The statements that remove the protection of {@code table}; the shared check is left in place. */
    public static List<String> removalDdl(FenceDialect dialect, String table) {
        return switch (dialect) {
            case POSTGRESQL ->
                List.of(
                        "DROP TRIGGER IF EXISTS fencelock_guard ON " + table,
                        "DROP TRIGGER IF EXISTS fencelock_guard_truncate ON " + table);
            case MARIADB ->
                List.of(
                        "DROP TRIGGER IF EXISTS " + triggerName(table, "i"),
                        "DROP TRIGGER IF EXISTS " + triggerName(table, "u"),
                        "DROP TRIGGER IF EXISTS " + triggerName(table, "d"));
            case H2 -> List.of("DROP TRIGGER IF EXISTS " + h2TriggerName(table));
        };
    }

    /** Whether {@code table} carries FenceLock's triggers in {@code connection}'s database. */
    public static boolean isProtected(Connection connection, FenceDialect dialect, String table) throws SQLException {
        String bare = table.substring(table.indexOf('.') + 1);
        String sql = switch (dialect) {
            case POSTGRESQL ->
                "SELECT COUNT(*) FROM pg_trigger WHERE tgrelid = to_regclass(?) AND tgname = 'fencelock_guard'";
            case MARIADB ->
                "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = "
                        + (table.contains(".") ? "'" + table.substring(0, table.indexOf('.')) + "'" : "DATABASE()")
                        + " AND LOWER(EVENT_OBJECT_TABLE) = LOWER(?) AND ACTION_STATEMENT LIKE '%fencelock%'";
            case H2 ->
                "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS WHERE UPPER(EVENT_OBJECT_TABLE) = UPPER(?)"
                        + " AND JAVA_CLASS = '" + H2_TRIGGER + "'";
        };
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, (dialect == FenceDialect.POSTGRESQL) ? table : bare);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) > 0;
            }
        }
    }

    /** The statement that puts a session fence (its one parameter) in the session for the current transaction. */
    static String sessionFenceSql(FenceDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "SELECT set_config('fencelock.fence', ?, true)";
            case MARIADB -> "SET @fencelock_fence = ?";
            case H2 -> "CALL " + H2FenceTrigger.SET_FENCE + "(?)";
        };
    }

    /** Puts {@code value} ({@link SessionFence}) in the session for the current transaction. */
    static void setSessionFence(Connection connection, FenceDialect dialect, String value) throws SQLException {
        setSessionFence(connection, dialect, value, 0);
    }

    /**
     * Puts the fence in the session and, when {@code idleMillis} is above 0, bounds how long the
     * transaction may sit idle (PostgreSQL for this transaction, MariaDB for the session until the
     * client resets it; H2 has no such bound), in one statement. Where the guard checks nothing
     * itself, this is the only place a frozen holder's hold on the fence row gets its bound.
     */
    static void setSessionFence(Connection connection, FenceDialect dialect, String value, long idleMillis)
            throws SQLException {
        boolean idle = idleMillis > 0 && dialect != FenceDialect.H2;
        String sql = sessionFenceSql(dialect)
                + switch (dialect) {
                    case POSTGRESQL -> idle ? ", set_config('idle_in_transaction_session_timeout', ?, true)" : "";
                    case MARIADB -> idle ? ", SESSION idle_write_transaction_timeout = ?" : "";
                    case H2 -> "";
                };
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, value);
            if (idle && dialect == FenceDialect.POSTGRESQL) {
                statement.setString(2, Long.toString(idleMillis));
            } else if (idle) {
                statement.setLong(2, Math.max(1, (idleMillis + 999) / 1000));
            }
            statement.execute();
        }
    }

    /**
     * Whether a fence set in the session outlives the transaction that set it, so the client must
     * clear it before the session serves anyone else: MariaDB's session variables do; PostgreSQL's
     * transaction-local setting and H2's transaction-paired one do not.
     */
    static boolean outlivesTransaction(FenceDialect dialect) {
        return dialect == FenceDialect.MARIADB;
    }

    /** Removes the session's fence, and gives back its idle-transaction bound (MariaDB), in one statement. */
    static void resetSession(Connection connection, boolean fence, boolean idleBound) throws SQLException {
        String sql = "SET " + (fence ? "@fencelock_fence = NULL" : "")
                + (fence && idleBound ? ", " : "")
                + (idleBound ? "SESSION idle_write_transaction_timeout = DEFAULT" : "");
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.execute();
        }
    }

    /**
     * The refusal a protected table's trigger raised, found in {@code failure} or its causes, or
     * {@code null}: {@link #NO_FENCE}, {@link #STALE} or {@link #NESTED} (MariaDB's {@code 45F0x}
     * given as these).
     */
    static @Nullable SQLException refusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.equals(NO_FENCE)
                        || state.equals(STALE)
                        || state.equals(NESTED)
                        || state.equals("45F01")
                        || state.equals("45F02")
                        || state.equals("45F03")) {
                    return sql;
                }
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }

    /**
     * What a protected table's refusal in {@code failure} means to the caller, or {@code null} when it
     * is none: a stale token becomes a {@link FencingTokenRejectedException} (refused by the protected
     * table, told to {@code rejections}), a missing fence or a write from a nested transaction a {@link
     * LockException}.
     */
    static @Nullable RuntimeException translate(
            SQLException failure, UnaryOperator<FencingTokenRejectedException> rejections) {
        SQLException refusal = refusal(failure);
        if (refusal == null) {
            return null;
        }
        RuntimeException translated = translate(
                refusal.getSQLState(),
                refusal.getMessage(),
                FencingContext.writeFence().orElse(null),
                failure);
        return (translated instanceof FencingTokenRejectedException rejection)
                ? rejections.apply(rejection)
                : translated;
    }

    /** {@link #translate(SQLException, UnaryOperator)} for a refusal given by its SQLSTATE and message, under {@code fence}. */
    static @Nullable RuntimeException translate(
            @Nullable String sqlState, @Nullable String message, @Nullable Fence fence, Throwable failure) {
        if (sqlState == null
                || !List.of(NO_FENCE, STALE, NESTED, "45F01", "45F02", "45F03").contains(sqlState)) {
            return null;
        }
        String kind = kind(sqlState);
        if (!kind.equals(STALE)) {
            return new LockException(
                    "The database refused the write: " + message
                            + (kind.equals(NO_FENCE)
                                    ? " (configure the table among the guard's protected tables, or write under a lock)"
                                    : ""),
                    failure);
        }
        String resource = (fence != null) ? fence.resource() : "?";
        long token = (fence != null) ? fence.token() : -1;
        FencingTokenRejectedException rejection = new FencingTokenRejectedException(
                resource,
                token,
                acceptedToken(message),
                "Fencing token " + token + " for '" + resource + "' was refused by a protected table in the database ("
                        + message + "): a newer lock holder already wrote. This process lost the lock;"
                        + " roll back the transaction and do not retry with the same lock.",
                FencingTokenRejectedException.RefusedBy.PROTECTED_TABLE);
        rejection.initCause(failure);
        return rejection;
    }

    /** The newer token named by a trigger's "fencelock: stale T < S for key" message, if it is there. */
    private static @Nullable Long acceptedToken(@Nullable String message) {
        Matcher stale = STALE_MESSAGE.matcher(String.valueOf(message));
        return stale.find() ? Long.valueOf(stale.group(1)) : null;
    }

    /** {@link #NO_FENCE}, {@link #STALE} or {@link #NESTED} for a refusal of any database. */
    static String kind(SQLException refusal) {
        return kind(refusal.getSQLState());
    }

    private static String kind(String sqlState) {
        return switch (sqlState) {
            case "45F01" -> NO_FENCE;
            case "45F02" -> STALE;
            case "45F03" -> NESTED;
            default -> sqlState;
        };
    }

    /**
     * The PostgreSQL statement that takes, until its transaction ends, the advisory lock that
     * FenceLock's own schema changes take ({@link FenceGuard#createTableIfMissing}, {@link
     * FenceGuard#protectTables}). Code that runs {@link #ddl} through another driver (R2DBC) at
     * start-up runs it first, in the same transaction, so that instances starting together never
     * replace the same trigger function at the same moment.
     */
    public static String postgresqlSchemaLock() {
        return SchemaChanges.postgresqlLockSql();
    }

    /** Runs {@link #ddl} for {@code table} on {@code connection}, naming the table when a statement fails. */
    static void install(Connection connection, FenceDialect dialect, FenceTable fence, String table)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : ddl(dialect, fence, table)) {
                try {
                    statement.execute(sql);
                } catch (SQLException ex) {
                    throw new SQLException(
                            "Could not protect table '" + table + "' (does it exist yet? Protect it after the"
                                    + " migration that creates it): " + ex.getMessage(),
                            ex.getSQLState(),
                            ex);
                }
            }
        }
    }

    /** The name of the routine that checks the fences, one per fence table, beside it. */
    static String checkRoutine(FenceTable fence) {
        String schema = fence.schema();
        String bare = fence.name().substring(fence.name().indexOf('.') + 1);
        return (schema != null ? schema + "." : "") + fitted("fencelock_check_" + bare.toLowerCase(Locale.ROOT));
    }

    private static List<String> postgresql(FenceTable fence, String table) {
        String function = checkRoutine(fence);
        List<String> ddl = new ArrayList<>();
        ddl.add("CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $fencelock$\n"
                + "DECLARE\n"
                + "  v_fence text := current_setting('fencelock.fence', true);\n"
                + "  v_item text;\n"
                + "  v_token bigint;\n"
                + "  v_key text;\n"
                + "  v_stored bigint;\n"
                + "BEGIN\n"
                + "  IF current_setting('fencelock.bypass', true) = 'on' THEN\n"
                + "    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;\n"
                + "  END IF;\n"
                + "  IF v_fence IS NULL OR v_fence = '' THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = '" + NO_FENCE + "', MESSAGE = format('fencelock: %s on protected"
                + " table %s carries no fence: write under a lock through a fenced data source with this table among"
                + " its protected tables, or set fencelock.bypass', TG_OP, TG_TABLE_NAME);\n"
                + "  END IF;\n"
                + "  IF left(v_fence, 1) = '" + SessionFence.RIDER + "' THEN\n"
                + "    RAISE EXCEPTION USING ERRCODE = '" + NESTED + "', MESSAGE = format('fencelock: %s on protected"
                + " table %s from a transaction nested in a fenced one of the same thread, which holds the fence"
                + " row: write it in the outer transaction', TG_OP, TG_TABLE_NAME);\n"
                + "  END IF;\n"
                + "  IF current_setting('fencelock.checked', true) IS DISTINCT FROM v_fence THEN\n"
                + "    FOREACH v_item IN ARRAY string_to_array(v_fence, chr(30)) LOOP\n"
                + "      v_token := split_part(v_item, ':', 1)::bigint;\n"
                + "      v_key := substr(v_item, strpos(v_item, ':') + 1);\n"
                + "      INSERT INTO " + fence + " AS f (resource, token, updated_at) VALUES (v_key, v_token,"
                + " LOCALTIMESTAMP)\n"
                + "        ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at ="
                + " EXCLUDED.updated_at WHERE f.token <= EXCLUDED.token;\n"
                + "      IF NOT FOUND THEN\n"
                + "        SELECT f.token INTO v_stored FROM " + fence + " f WHERE f.resource = v_key;\n"
                + "        RAISE EXCEPTION USING ERRCODE = '" + STALE + "', MESSAGE = format('fencelock: stale %s < %s"
                + " for %s, refused by protected table %s', v_token, v_stored, v_key, TG_TABLE_NAME);\n"
                + "      END IF;\n"
                + "    END LOOP;\n"
                + "    PERFORM set_config('fencelock.checked', v_fence, true);\n"
                + "  END IF;\n"
                + "  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;\n"
                + "END\n"
                + "$fencelock$");
        ddl.add("CREATE OR REPLACE TRIGGER fencelock_guard BEFORE INSERT OR UPDATE OR DELETE ON " + table
                + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
        ddl.add("CREATE OR REPLACE TRIGGER fencelock_guard_truncate BEFORE TRUNCATE ON " + table
                + " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "()");
        // ALWAYS: the triggers fire even in sessions with session_replication_role = replica.
        ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER fencelock_guard");
        ddl.add("ALTER TABLE " + table + " ENABLE ALWAYS TRIGGER fencelock_guard_truncate");
        return ddl;
    }

    private static List<String> mariadb(FenceTable fence, String table) {
        String procedure = checkRoutine(fence);
        List<String> ddl = new ArrayList<>();
        ddl.add("CREATE OR REPLACE PROCEDURE " + procedure + "(IN written VARCHAR(64))\n"
                + "MODIFIES SQL DATA\n"
                + "fencelock: BEGIN\n"
                + "  DECLARE v_rest LONGTEXT CHARACTER SET utf8mb4 DEFAULT @fencelock_fence;\n"
                + "  DECLARE v_item LONGTEXT CHARACTER SET utf8mb4;\n"
                + "  DECLARE v_key VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;\n"
                + "  DECLARE v_token BIGINT;\n"
                + "  DECLARE v_stored BIGINT;\n"
                + "  DECLARE v_message VARCHAR(128);\n"
                + "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_stored = NULL;\n"
                + "  IF @fencelock_bypass = 'on' THEN\n"
                + "    LEAVE fencelock;\n"
                + "  END IF;\n"
                + "  IF v_rest IS NULL OR v_rest = '' THEN\n"
                + "    SET v_message = LEFT(CONCAT('fencelock: write to protected table ', written, ' carries no"
                + " fence'), 128);\n"
                + "    SIGNAL SQLSTATE '45F01' SET MESSAGE_TEXT = v_message;\n"
                + "  END IF;\n"
                + "  IF LEFT(v_rest, 1) = '" + SessionFence.RIDER + "' THEN\n"
                + "    SET v_message = LEFT(CONCAT('fencelock: write to protected table ', written, ' from a nested"
                + " transaction'), 128);\n"
                + "    SIGNAL SQLSTATE '45F03' SET MESSAGE_TEXT = v_message;\n"
                + "  END IF;\n"
                + "  WHILE v_rest <> '' DO\n"
                + "    SET v_item = SUBSTRING_INDEX(v_rest, CHAR(30 USING utf8mb4), 1);\n"
                + "    SET v_rest = SUBSTRING(v_rest, CHAR_LENGTH(v_item) + 2);\n"
                + "    SET v_token = CAST(SUBSTRING_INDEX(v_item, ':', 1) AS SIGNED);\n"
                + "    SET v_key = SUBSTRING(v_item, LOCATE(':', v_item) + 1);\n"
                + "    SET v_stored = NULL;\n"
                // A locking read decides in the common case (this transaction holds the row already).
                + "    SELECT token INTO v_stored FROM " + fence + " WHERE resource = v_key FOR UPDATE;\n"
                + "    IF v_stored IS NULL OR v_stored < v_token THEN\n"
                + "      INSERT INTO " + fence + " (resource, token, updated_at) VALUES (v_key, v_token,"
                + " CURRENT_TIMESTAMP(6))\n"
                + "        ON DUPLICATE KEY UPDATE updated_at = IF(token <= VALUES(token), VALUES(updated_at),"
                + " updated_at), token = IF(token <= VALUES(token), VALUES(token), token);\n"
                + "      SELECT token INTO v_stored FROM " + fence + " WHERE resource = v_key FOR UPDATE;\n"
                + "    END IF;\n"
                + "    IF v_stored > v_token THEN\n"
                + "      SET v_message = LEFT(CONCAT('fencelock: stale ', v_token, ' < ', v_stored, ' for ', v_key),"
                + " 128);\n"
                + "      SIGNAL SQLSTATE '45F02' SET MESSAGE_TEXT = v_message;\n"
                + "    END IF;\n"
                + "  END WHILE;\n"
                + "END fencelock");
        for (String event : List.of("INSERT", "UPDATE", "DELETE")) {
            ddl.add("CREATE OR REPLACE TRIGGER "
                    + triggerName(table, event.substring(0, 1).toLowerCase(Locale.ROOT))
                    + " BEFORE " + event + " ON " + table + " FOR EACH ROW CALL " + procedure + "('"
                    + table + "')");
        }
        return ddl;
    }

    private static List<String> h2(FenceTable fence, String table) {
        String trigger = h2TriggerName(table);
        return List.of(
                "CREATE ALIAS IF NOT EXISTS " + H2FenceTrigger.SET_FENCE + " FOR '" + H2_TRIGGER + ".setFence'",
                "DROP TRIGGER IF EXISTS " + trigger,
                "CREATE TRIGGER " + trigger + " BEFORE INSERT, UPDATE, DELETE ON " + table + " CALL '" + H2_TRIGGER
                        + "'",
                // The trigger reads which fence table to check from its remarks.
                "COMMENT ON TRIGGER " + trigger + " IS '" + fence + "'");
    }

    private static String triggerName(String table, String event) {
        String schema = table.contains(".") ? table.substring(0, table.indexOf('.') + 1) : "";
        String bare = table.substring(table.indexOf('.') + 1);
        return schema + fitted(bare + "_fencelock_" + event);
    }

    private static String h2TriggerName(String table) {
        String schema = table.contains(".") ? table.substring(0, table.indexOf('.') + 1) : "";
        return schema + fitted(table.substring(table.indexOf('.') + 1) + "_fencelock");
    }

    /** {@code name}, or when it is longer than 63 characters, its start and a hash of all of it. */
    private static String fitted(String name) {
        if (name.length() <= 63) {
            return name;
        }
        return name.substring(0, 54) + "_" + String.format("%08x", name.hashCode());
    }
}
