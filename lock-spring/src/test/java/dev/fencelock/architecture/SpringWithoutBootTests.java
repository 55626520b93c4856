package dev.fencelock.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * {@code lock-spring} is what a domain module that only annotates methods, and a Spring Framework
 * application without Spring Boot, depend on: none of its classes may use Spring Boot. The
 * enforcer keeps Boot off its Maven dependencies; this rule also catches a reference that a
 * dependency brought in some other way would let compile.
 */
@AnalyzeClasses(
        packages = {"dev.fencelock.annotation", "dev.fencelock.interceptor"},
        importOptions = ImportOption.DoNotIncludeTests.class)
class SpringWithoutBootTests {

    @ArchTest
    static final ArchRule noClassUsesSpringBoot =
            noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework.boot..");

    @ArchTest
    static final ArchRule packagesHaveNoCycles =
            slices().matching("dev.fencelock.(**)").should().beFreeOfCycles();
}
