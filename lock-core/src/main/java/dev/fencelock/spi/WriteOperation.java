package dev.fencelock.spi;

import java.util.Locale;

/** What a write to the lock store was for; a bounded set, safe as a metric tag ({@link #tagValue()}). */
public enum WriteOperation {

    /** Creating acquisitions' keys (a shared Txn may carry deferred releases too). */
    ACQUIRE,

    /** Deleting keys: releases, and clean-ups of keys no acquisition kept. */
    RELEASE,

    /** Marking, or unmarking, an acquisition whose write had an unknown outcome as abandoned. */
    ABANDON,

    /** Refreshing a session lease (a keep-alive, or an explicit renewal's). */
    RENEW;

    /** The lower-case name: {@code acquire}, {@code release}, {@code abandon}, {@code renew}. */
    public String tagValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
