package dev.fencelock.verification.checker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The checker must not share code with what it checks: only the JDK and its own package. */
class CheckerIndependenceTest {

    @Test
    void theCheckerUsesNothingButTheJdkAndItself() {
        JavaClasses checker = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.fencelock.verification.checker");

        classes()
                .that()
                .resideInAPackage("dev.fencelock.verification.checker")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "dev.fencelock.verification.checker")
                .check(checker);
    }
}
