package dev.fencelock.jpa;

import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * An application's own statement inspector in the style of SQL commenters: it tags every statement
 * with comments before and after, as tracing libraries do.
 */
public class TraceCommentInspector implements StatementInspector {

    private static final AtomicInteger INSPECTED = new AtomicInteger();

    static int inspected() {
        return INSPECTED.get();
    }

    @Override
    public String inspect(String sql) {
        INSPECTED.incrementAndGet();
        return "/* app='inventory' */ " + sql
                + " /*traceparent='00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'*/";
    }
}
