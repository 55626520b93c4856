package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.ResourceName;
import org.junit.jupiter.api.Test;

class LockKeysTest {

    private final LockKeys keys = new LockKeys("/fencelock");

    @Test
    void nestedAndEscapedLookingNamesGetDisjointPrefixes() {
        String a = this.keys.resourcePrefix(ResourceName.of("a", 255));
        String ab = this.keys.resourcePrefix(ResourceName.of("a/b", 255));
        String escaped = this.keys.resourcePrefix(ResourceName.of("a%2Fb", 255));
        assertThat(ab).doesNotStartWith(a);
        assertThat(escaped).isNotEqualTo(ab).doesNotStartWith(a);
    }

    @Test
    void noResourcePrefixIsAPrefixOfAnotherResourcesKeys() {
        qt().forAll(
                        strings().allPossible().ofLengthBetween(1, 12),
                        strings().allPossible().ofLengthBetween(1, 12))
                .checkAssert((first, second) -> {
                    ResourceName one;
                    ResourceName two;
                    try {
                        one = ResourceName.of(first, 255);
                        two = ResourceName.of(second, 255);
                    } catch (InvalidLockKeyException invalid) {
                        return;
                    }
                    if (!one.equals(two)) {
                        assertThat(this.keys.key(two, "r1")).doesNotStartWith(this.keys.resourcePrefix(one));
                    }
                });
    }

    @Test
    void encodingRoundTrips() {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 30)).checkAssert(value -> {
            if (value.codePoints().noneMatch(cp -> Character.getType(cp) == Character.SURROGATE)) {
                assertThat(LockKeys.decode(LockKeys.encode(value))).isEqualTo(value);
            }
        });
    }
}
