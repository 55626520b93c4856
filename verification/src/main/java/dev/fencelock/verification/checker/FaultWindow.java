package dev.fencelock.verification.checker;

/**
 * A fault as the orchestrator logged it: from the moment it was injected to the moment it was healed.
 *
 * @param name the kind of fault, such as {@code zombie}
 * @param detail what exactly was done, such as {@code SIGSTOP w2 for 5000 ms}
 * @param start {@code System.nanoTime()} when the fault began
 * @param end {@code System.nanoTime()} when it was healed
 */
public record FaultWindow(String name, String detail, long start, long end) {}
