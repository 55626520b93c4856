package dev.fencelock.jpa;

import org.hibernate.resource.jdbc.spi.StatementInspector;

/** An application's own statement inspector, which leaves fenced updates unfenced. */
public class NoopStatementInspector implements StatementInspector {

    @Override
    public String inspect(String sql) {
        return sql;
    }
}
