package dev.fencelock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The core stays free of Spring, JDBC and the backends' libraries (its Maven dependencies already
 * keep jetcd, gRPC, Netty and Micrometer off its class path), and has no package cycles.
 */
@AnalyzeClasses(packages = "dev.fencelock", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule coreDoesNotDependOnSpring = noClasses()
            .that()
            .resideInAPackage("dev.fencelock..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework..", "jakarta.persistence..", "org.hibernate..");

    @ArchTest
    static final ArchRule coreHasNoJdbcCode = noClasses()
            .that()
            .resideInAPackage("dev.fencelock..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("java.sql..", "javax.sql..");

    @ArchTest
    static final ArchRule packagesHaveNoCycles =
            slices().matching("dev.fencelock.(*)..").should().beFreeOfCycles();
}
