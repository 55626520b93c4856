package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.LockKind;
import java.util.List;
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
                        assertThat(this.keys.key(two, "r1", LockKind.EXCLUSIVE))
                                .doesNotStartWith(this.keys.resourcePrefix(one));
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

    @Test
    void everyKeySaysItsKindAndRequestIdAndOnlySharedKeysSortBeforeTheNonSharedRange() {
        ResourceName resource = ResourceName.of("catalog", 255);
        String prefix = this.keys.resourcePrefix(resource);
        List<LockKind> kinds = List.of(LockKind.EXCLUSIVE, LockKind.SHARED, LockKind.permits(2), LockKind.permits(40));
        qt().forAll(strings().allPossible().ofLengthBetween(1, 30)).checkAssert(requestId -> {
            if (requestId.codePoints().anyMatch(cp -> Character.getType(cp) == Character.SURROGATE)) {
                return;
            }
            for (LockKind kind : kinds) {
                String key = this.keys.key(resource, requestId, kind);
                assertThat(key).startsWith(prefix);
                assertThat(LockKeys.kindOf(key)).isEqualTo(kind);
                assertThat(LockKeys.requestIdOf(key)).isEqualTo(requestId);
                boolean inNonSharedRange = key.compareTo(LockKeys.nonSharedStart(prefix)) >= 0
                        && key.compareTo(LockKeys.prefixEnd(prefix)) < 0;
                assertThat(inNonSharedRange).as(key).isEqualTo(kind != LockKind.SHARED);
            }
        });
        // Exclusive keys look as they did before read-write locks existed.
        assertThat(this.keys.key(resource, "r-1", LockKind.EXCLUSIVE)).isEqualTo("/fencelock/locks/catalog/r-1");
        assertThat(this.keys.key(resource, "r-1", LockKind.SHARED)).isEqualTo("/fencelock/locks/catalog/!shared:r-1");
        assertThat(this.keys.key(resource, "r-1", LockKind.permits(3)))
                .isEqualTo("/fencelock/locks/catalog/#permits-3:r-1");
        // A marker names the session that abandoned the request: only that session's put is in doubt.
        assertThat(this.keys.abandonedMarker(resource, "r-1", LockKind.SHARED, 0x2a))
                .isEqualTo("/fencelock/abandoned/catalog/2a/!shared:r-1");
    }
}
