package dev.fencelock.jdbc;

import java.io.FilterOutputStream;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.sql.SQLException;

/**
 * The stream a large object hands out for writing ({@code Blob.setBinaryStream}, {@code
 * Clob.setCharacterStream}, …). PostgreSQL's write to the server as the caller writes, maybe in a
 * later transaction than the one that asked for the stream, so every write runs the guard first
 * (a lookup when the transaction already presented its fences).
 */
final class FencedLargeObjectStream {

    private FencedLargeObjectStream() {}

    static Object of(Object stream, FencedConnection connection) {
        if (stream instanceof OutputStream out) {
            return new FilterOutputStream(out) {
                @Override
                public void write(int b) throws IOException {
                    guard(connection);
                    this.out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    guard(connection);
                    this.out.write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    guard(connection);
                    this.out.flush();
                }
            };
        }
        return new FilterWriter((Writer) stream) {
            @Override
            public void write(int c) throws IOException {
                guard(connection);
                this.out.write(c);
            }

            @Override
            public void write(char[] cbuf, int off, int len) throws IOException {
                guard(connection);
                this.out.write(cbuf, off, len);
            }

            @Override
            public void write(String str, int off, int len) throws IOException {
                guard(connection);
                this.out.write(str, off, len);
            }

            @Override
            public void flush() throws IOException {
                guard(connection);
                this.out.flush();
            }
        };
    }

    private static void guard(FencedConnection connection) throws IOException {
        try {
            connection.beforeDirectWrite();
        } catch (SQLException ex) {
            throw new IOException(ex.getMessage(), ex);
        }
    }
}
