package dev.fencelock.spi;

/**
 * One key in a resource's queue, as the store has it: the holder is the entry with the smallest
 * create revision, the others wait in that order.
 *
 * @param requestId the acquisition's request id
 * @param leaseId the lease the key lives on
 * @param fencingToken the key's create revision: the holder's token, or a waiter's future token
 * @param holder the holder record the acquiring client wrote (instance, acquired-at, TTL), as stored
 */
public record QueueEntry(String requestId, long leaseId, long fencingToken, String holder) {}
