package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Refuses to start when a FenceLock namespace of this application nests with another on the same
 * etcd cluster: two of this application's own etcd backends (the auto-configured one, backends and
 * clients the application defines), and then every namespace registered on the cluster by any
 * application, through {@link EtcdLockBackend#registerNamespace()}.
 *
 * <p>Backends of one application are taken to share a cluster when they share an endpoint; the
 * registry finds the rest. When etcd does not answer, or refuses access to the registry, the check
 * of other applications is skipped with a warning, so an application can start while etcd is down.
 */
final class EtcdNamespaceCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(EtcdNamespaceCheck.class);

    private final ListableBeanFactory beanFactory;

    private final Duration timeout;

    EtcdNamespaceCheck(ListableBeanFactory beanFactory, Duration timeout) {
        this.beanFactory = beanFactory;
        this.timeout = timeout;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<EtcdLockBackend> backends = backends();
        for (int i = 0; i < backends.size(); i++) {
            for (int j = i + 1; j < backends.size(); j++) {
                EtcdLockBackend one = backends.get(i);
                EtcdLockBackend other = backends.get(j);
                if (EtcdLockBackend.isNested(one.namespace(), other.namespace())
                        && !Collections.disjoint(one.endpoints(), other.endpoints())) {
                    throw new NestedNamespacesException(
                            one.namespace(),
                            List.of(other.namespace()),
                            "in this application, on " + other.endpoints());
                }
            }
        }
        for (EtcdLockBackend backend : backends) {
            List<String> nested = registered(backend);
            if (!nested.isEmpty()) {
                throw new NestedNamespacesException(
                        backend.namespace(), nested, "registered on etcd " + backend.endpoints());
            }
        }
    }

    /** The etcd backends of this application: beans, and those behind client beans. */
    private List<EtcdLockBackend> backends() {
        // In bean order, each backend once (two client beans may share one).
        List<EtcdLockBackend> found = new ArrayList<>(
                this.beanFactory.getBeansOfType(EtcdLockBackend.class).values());
        for (LockClient client :
                this.beanFactory.getBeansOfType(LockClient.class).values()) {
            if (client.backend() instanceof EtcdLockBackend backend
                    && found.stream().noneMatch(known -> known == backend)) {
                found.add(backend);
            }
        }
        return found;
    }

    private List<String> registered(EtcdLockBackend backend) {
        try {
            return backend.registerNamespace().get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            warnUnchecked(backend, String.valueOf(ex.getCause().getMessage()));
        } catch (TimeoutException ex) {
            warnUnchecked(backend, "no answer within " + this.timeout.toMillis() + " ms");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return List.of();
    }

    private static void warnUnchecked(EtcdLockBackend backend, String why) {
        logger.warn("Could not check FenceLock namespace '" + backend.namespace() + "' against the namespaces other"
                + " applications registered on etcd " + backend.endpoints() + " (" + why + "). Nested namespaces"
                + " would share keys; with etcd authentication, grant read on the prefix 'fencelock-namespaces/'"
                + " and write on this namespace's key in it (see docs/operations.md).");
    }
}
