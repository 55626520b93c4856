package dev.fencelock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.jdbc.FencedRowComment;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FencingStatementInspectorTest {

    private final FencingStatementInspector inspector = new FencingStatementInspector();

    private FencingContext.Scope fence;

    @BeforeEach
    void holdToken7() {
        this.inspector.register("stock", "fence_token");
        this.fence = FencingContext.push(new Fence("stock:apple", 7, null));
    }

    @AfterEach
    void dropFence() {
        this.fence.close();
    }

    @Test
    void anUpdateOfAFencedTableCarriesTheTokenAndTheMarker() {
        String sql = this.inspector.inspect("update stock set qty=?,fence_token=? where sku=?");
        assertThat(sql).startsWith("update stock set qty=?,fence_token=? where (sku=?) and fence_token<=7");
        assertThat(FencedRowComment.fencedRow(sql)).isEqualTo("stock.fence_token");
    }

    @Test
    void aSharedLockInsideTheExclusiveOneDoesNotLendItsTokenToTheUpdate() {
        // A reader's (newer) token would pass a row that the exclusive lock's next holder fenced.
        try (FencingContext.Scope shared = FencingContext.push(new Fence("catalog", 250, sharedLease()))) {
            assertThat(this.inspector.inspect("update stock set qty=? where sku=?"))
                    .startsWith("update stock set qty=? where (sku=?) and fence_token<=7");
        }
    }

    @Test
    void underOnlyASharedLockTheUpdateIsNotFencedWithItsToken() {
        this.fence.close();
        try (FencingContext.Scope shared = FencingContext.push(new Fence("catalog", 250, sharedLease()))) {
            assertThat(this.inspector.inspect("update stock set qty=? where sku=?"))
                    .doesNotContain("250");
        }
    }

    /** A lease of one of several holders (a reader); only what the inspector may read is answered. */
    private static LockLease sharedLease() {
        return (LockLease) Proxy.newProxyInstance(
                FencingStatementInspectorTest.class.getClassLoader(),
                new Class<?>[] {LockLease.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isExclusive" -> false;
                    case "isValid", "isFencing" -> true;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aDeleteIsFencedToo() {
        assertThat(this.inspector.inspect("delete from stock where sku=?"))
                .startsWith("delete from stock where (sku=?) and fence_token<=7");
    }

    @Test
    void commentsBeforeAndInsideTheStatementHideNothing() {
        String sql = this.inspector.inspect(
                "/* update for dev.fencelock.Stock */ update stock set qty=? /* where? */ where sku=?");
        assertThat(sql).contains("where (sku=?) and fence_token<=7").startsWith("/* update for");
        assertThat(this.inspector.inspect("-- tag\nupdate stock set qty=? where sku=?"))
                .contains("and fence_token<=7");
    }

    @Test
    void aWhereInsideALiteralIsNotTheStatementsWhere() {
        assertThat(this.inspector.inspect("update stock set note='it''s where it is' where sku=?"))
                .startsWith("update stock set note='it''s where it is' where (sku=?) and fence_token<=7");
    }

    @Test
    void theApplicationsInspectorRunsFirstAndItsCommentsStay() {
        FencingStatementInspector chained =
                new FencingStatementInspector((sql) -> "/* app */ " + sql + " /*traceparent='x'*/");
        chained.register("stock", "fence_token");
        String sql = chained.inspect("update stock set qty=? where sku=?");
        assertThat(sql).startsWith("/* app */ update stock set qty=? where (sku=? /*traceparent='x'*/) and");
        assertThat(FencedRowComment.fencedRow(sql)).isEqualTo("stock.fence_token");
        assertThat(FencedRowComment.fencedRow(sql + " /* added later */")).isEqualTo("stock.fence_token");
    }

    @Test
    void anUpdateWithASubqueryIsRefused() {
        assertThatThrownBy(() -> this.inspector.inspect("update stock set qty=(select 1 from x where y=1) where sku=?"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("more than one WHERE");
    }

    @Test
    void otherTablesAndUnfencedThreadsAreLeftAlone() {
        assertThat(this.inspector.inspect("update other set a=1 where id=?"))
                .isEqualTo("update other set a=1 where id=?");
        this.fence.close();
        assertThat(this.inspector.inspect("update stock set qty=? where sku=?"))
                .isEqualTo("update stock set qty=? where sku=?");
        this.fence = FencingContext.push(new Fence("stock:apple", 7, null));
    }
}
