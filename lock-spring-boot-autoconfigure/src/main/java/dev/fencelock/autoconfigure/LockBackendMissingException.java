package dev.fencelock.autoconfigure;

/**
 * Stops the application because {@code fencelock.backend} names a lock store whose module is not
 * on the class path; {@link LockBackendMissingFailureAnalyzer} reports it with where the backend
 * was chosen.
 */
public class LockBackendMissingException extends IllegalStateException {

    private final String backend;

    private final String module;

    /**
     * Creates the exception.
     *
     * @param backend the value of {@code fencelock.backend}, such as {@code etcd}
     * @param module the Maven coordinates of the missing module
     */
    public LockBackendMissingException(String backend, String module) {
        super("fencelock.backend is " + backend + ", but the " + backend + " backend (" + module + ") is not on the"
                + " classpath. " + action(module));
        this.backend = backend;
        this.module = module;
    }

    /** The value of {@code fencelock.backend}. */
    public String getBackend() {
        return this.backend;
    }

    /** The Maven coordinates of the missing module. */
    public String getModule() {
        return this.module;
    }

    static String action(String module) {
        return "Depend on lock-spring-boot-starter (or add " + module + "), set fencelock.backend=in-memory for"
                + " tests, or set fencelock.enabled=false.";
    }
}
