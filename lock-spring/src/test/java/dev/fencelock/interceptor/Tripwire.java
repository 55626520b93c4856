package dev.fencelock.interceptor;

import java.util.concurrent.atomic.AtomicBoolean;

/** Records whether code reachable from a lock key expression ever ran. */
public class Tripwire {

    static final AtomicBoolean TRIPPED = new AtomicBoolean();

    public Tripwire() {
        TRIPPED.set(true);
    }

    public static String trip() {
        TRIPPED.set(true);
        return "tripped";
    }

    public String tripInstance() {
        TRIPPED.set(true);
        return "tripped";
    }
}
