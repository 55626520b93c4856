package dev.fencelock.zookeeper;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A lock holder in a JVM of its own, for {@link ZooKeeperFrozenHolderTest}: it takes a lock on
 * ZooKeeper, reports its token, and then, told to on standard input, writes under that lock through
 * the JDBC guard and reports what happened. Arguments: connect string, resource, lease TTL in
 * seconds, JDBC URL, fence table, data table.
 */
public final class FrozenHolderMain {

    private FrozenHolderMain() {}

    public static void main(String[] args) throws Exception {
        String connectString = args[0];
        String resource = args[1];
        long ttlSeconds = Long.parseLong(args[2]);
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setURL(args[3]);
        database.setUser("fencelock");
        database.setPassword("fencelock");
        FencedDataSource fenced = new FencedDataSource(
                database, FenceGuard.builder().table(args[4]).build());
        String table = args[5];
        try (LockClient client = LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(connectString)
                        .build())
                .build()) {
            LockLease lease = client.acquire(LockRequest.builder(resource)
                    .leaseTtl(Duration.ofSeconds(ttlSeconds))
                    .build());
            report("token " + lease.fencingToken());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("write ")) {
                    report("valid " + lease.isValid());
                    try (FencingContext.Scope fence = FencingContext.open(lease);
                            Connection connection = fenced.getConnection();
                            PreparedStatement update =
                                    connection.prepareStatement("UPDATE " + table + " SET v = ? WHERE id = 1")) {
                        connection.setAutoCommit(false);
                        update.setLong(1, Long.parseLong(line.substring(6)));
                        update.executeUpdate();
                        connection.commit();
                        report("write ok");
                    } catch (Exception ex) {
                        report("write refused " + ex.getClass().getSimpleName());
                    }
                } else if (line.equals("exit")) {
                    return;
                }
            }
        }
    }

    private static void report(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
