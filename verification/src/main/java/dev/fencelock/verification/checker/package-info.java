/**
 * The campaign's checker: reads the workers' history files, the orchestrator's fault log and the database tables,
 * and decides whether the history is correct.
 *
 * <p>It shares no code with FenceLock or with the rest of the campaign (only the JDK; an architecture test keeps it
 * so): a bug in the library or in the workers cannot hide itself by being repeated here.
 */
package dev.fencelock.verification.checker;
