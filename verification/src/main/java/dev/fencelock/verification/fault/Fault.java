package dev.fencelock.verification.fault;

/** One kind of fault: injected, held, healed, and its window logged, all in {@link #inject}. */
public interface Fault {

    /** The name in reports, such as {@code zombie}. */
    String name();

    /** Injects the fault, holds it, heals it and logs its window through {@code target}. */
    void inject(FaultTarget target) throws Exception;
}
