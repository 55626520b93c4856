package dev.fencelock.http;

import dev.fencelock.FencingTokenRejectedException;

/**
 * Told what became of the fences of requests to fenced endpoints: for the audit trail and the
 * refusal counter. Called on the request's thread; must not throw.
 */
public interface FenceHeaderListener {

    /** A trusted header's fences were opened for the request. */
    default void accepted(FenceCaller caller, String method, String path, FenceHeaderVerifier.Verified header) {}

    /** The request was refused before it ran. */
    default void refused(FenceCaller caller, String method, String path, FenceHeaderRefusedException refusal) {}

    /** The service's database refused a write of the request: one of the caller's tokens is stale. */
    default void rejected(FenceCaller caller, String method, String path, FencingTokenRejectedException rejection) {}
}
