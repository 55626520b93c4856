package dev.fencelock.test.testcontainers;

import java.time.Duration;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A single etcd member in a container, from the etcd project's images ({@code
 * gcr.io/etcd-development/etcd}, or its mirror {@code quay.io/coreos/etcd}). Testcontainers has no
 * etcd module; this one starts {@code etcd} listening on all interfaces and waits until {@code
 * /health} says so. With the starter, {@code @ServiceConnection} on a field of this type points
 * {@code fencelock.etcd.*} at the container:
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection
 * static EtcdContainer etcd = new EtcdContainer(EtcdContainer.DEFAULT_IMAGE);
 * }</pre>
 *
 * One member has no fault tolerance; for fault tests use {@code EtcdCluster}, which runs members
 * as local processes.
 */
public class EtcdContainer extends GenericContainer<EtcdContainer> {

    /** The etcd project's image on its own registry. */
    public static final DockerImageName DEFAULT_IMAGE = DockerImageName.parse("gcr.io/etcd-development/etcd:v3.5.17");

    /** The client port inside the container. */
    public static final int CLIENT_PORT = 2379;

    private static final DockerImageName GCR_IMAGE = DockerImageName.parse("gcr.io/etcd-development/etcd");

    private static final DockerImageName QUAY_IMAGE = DockerImageName.parse("quay.io/coreos/etcd");

    /** A member of the given image, which must be the etcd project's (or declared compatible with it). */
    public EtcdContainer(DockerImageName image) {
        super(image);
        image.assertCompatibleWith(GCR_IMAGE, QUAY_IMAGE);
        withExposedPorts(CLIENT_PORT);
        withCommand(
                "etcd",
                "--name=fencelock",
                "--data-dir=/etcd-data",
                "--listen-client-urls=http://0.0.0.0:" + CLIENT_PORT,
                "--advertise-client-urls=http://0.0.0.0:" + CLIENT_PORT);
        waitingFor(Wait.forHttp("/health")
                .forPort(CLIENT_PORT)
                .forResponsePredicate((body) -> body.contains("\"health\":\"true\""))
                .withStartupTimeout(Duration.ofSeconds(60)));
    }

    /** A member of the given image name, such as {@code quay.io/coreos/etcd:v3.5.17}. */
    public EtcdContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** The client URL reachable from the test, such as {@code http://localhost:32771}. */
    public String getClientEndpoint() {
        return "http://" + getHost() + ":" + getMappedPort(CLIENT_PORT);
    }
}
