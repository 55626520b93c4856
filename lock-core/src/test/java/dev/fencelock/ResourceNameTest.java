package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import java.text.Normalizer;
import org.junit.jupiter.api.Test;

class ResourceNameTest {

    @Test
    void namesAreNormalisedToNfc() {
        assertThat(ResourceName.of("cafe\u0301", 255).value()).isEqualTo("caf\u00e9");
    }

    @Test
    void overLongNamesAreRefusedWithAShortPreview() {
        assertThatThrownBy(() -> ResourceName.of("x".repeat(10_000), 255))
                .isInstanceOf(InvalidLockKeyException.class)
                .hasMessageContaining("10000 characters")
                .hasMessageContaining("at most 255")
                .satisfies(ex -> assertThat(ex.getMessage()).hasSizeLessThan(300));
    }

    @Test
    void anyAcceptedNameIsNormalisedAndFreeOfInvisibleCharacters() {
        qt().forAll(strings().allPossible().ofLengthBetween(1, 40)).checkAssert(raw -> {
            try {
                String value = ResourceName.of(raw, 255).value();
                assertThat(Normalizer.isNormalized(value, Normalizer.Form.NFC)).isTrue();
                assertThat(value.codePoints()).noneMatch(Character::isISOControl);
            } catch (InvalidLockKeyException expected) {
                assertThat(expected.getMessage()).startsWith("Lock resource name");
            }
        });
    }
}
