package dev.fencelock.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * What Maven's module graph cannot say about every FenceLock module on this class path (core,
 * etcd, Redis, JDBC, JPA, Micrometer, ShedLock, Spring Integration, the test kit and the Spring layer): the
 * Spring layer reaches backends only through the SPI, and no package depends on another in a cycle.
 *
 * <p>{@code dev.fencelock.integration} is not in the Spring-free list: it implements Spring
 * Integration's lock registry, which is Spring. It stays free of Spring Boot (its Maven enforcer
 * rule says so).
 */
@AnalyzeClasses(packages = "dev.fencelock", importOptions = ImportOption.DoNotIncludeTests.class)
class ModuleBoundariesTests {

    @ArchTest
    static final ArchRule onlyTheEtcdAutoConfigurationKnowsTheEtcdBackend = noClasses()
            .that()
            .resideOutsideOfPackages("dev.fencelock.etcd..", "dev.fencelock.autoconfigure.etcd..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.fencelock.etcd..");

    @ArchTest
    static final ArchRule jetcdStaysInsideTheEtcdModules = noClasses()
            .that()
            .resideOutsideOfPackages("dev.fencelock.etcd..", "dev.fencelock.autoconfigure.etcd..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.etcd..");

    @ArchTest
    static final ArchRule onlyTheRedisAutoConfigurationKnowsTheRedisBackend = noClasses()
            .that()
            .resideOutsideOfPackages("dev.fencelock.redis..", "dev.fencelock.autoconfigure.redis..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.fencelock.redis..");

    @ArchTest
    static final ArchRule lettuceStaysInsideTheRedisModules = noClasses()
            .that()
            .resideOutsideOfPackages("dev.fencelock.redis..", "dev.fencelock.autoconfigure.redis..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.lettuce..");

    @ArchTest
    static final ArchRule onlyTheZooKeeperAutoConfigurationKnowsTheZooKeeperBackend = noClasses()
            .that()
            .resideOutsideOfPackages("dev.fencelock.zookeeper..", "dev.fencelock.autoconfigure.zookeeper..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.fencelock.zookeeper..");

    @ArchTest
    static final ArchRule theZooKeeperClientStaysInsideTheZooKeeperModule = noClasses()
            .that()
            .resideOutsideOfPackage("dev.fencelock.zookeeper..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.apache.zookeeper..");

    @ArchTest
    static final ArchRule springStaysInTheSpringLayer = noClasses()
            .that()
            .resideInAnyPackage(
                    "dev.fencelock",
                    "dev.fencelock.spi..",
                    "dev.fencelock.memory..",
                    "dev.fencelock.audit..",
                    "dev.fencelock.etcd..",
                    "dev.fencelock.redis..",
                    "dev.fencelock.zookeeper..",
                    "dev.fencelock.jdbc..",
                    "dev.fencelock.jpa..",
                    "dev.fencelock.r2dbc..",
                    "dev.fencelock.metrics..",
                    "dev.fencelock.observation..",
                    "dev.fencelock.shedlock..",
                    "dev.fencelock.test..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.springframework..");

    @ArchTest
    static final ArchRule packagesHaveNoCycles =
            slices().matching("dev.fencelock.(**)").should().beFreeOfCycles();
}
