package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code @DistributedLock(waitTimeout, leaseTtl)} takes, without Spring Boot, exactly the texts
 * that Spring Boot's {@link DurationStyle} takes for a {@code Duration} property (it lives here
 * because Boot is on this module's class path, not on lock-spring's).
 */
class DurationParserTests {

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(
            strings = {
                "0",
                "500",
                "+500",
                "-500",
                "007",
                "500ms",
                "10s",
                "2m",
                "1h",
                "1d",
                "1ns",
                "3us",
                "10S",
                "10MS",
                "5Ms",
                "2H",
                "1D",
                "+5s",
                "-5s",
                "0s",
                "PT10S",
                "pt10s",
                "PT0.5S",
                "-PT5S",
                "+PT1M",
                "P1D",
                "p1dt2h",
                "PT1H30M",
                "PT-5S",
                "9223372036854775807ns",
                "9223372036854775807ms",
                "9223372036854775807s",
                "106751991167300d"
            })
    void acceptedTextsShouldGiveBootsDuration(String text) {
        Duration expected = DurationStyle.detectAndParse(text);

        assertThat(DurationParser.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(
            strings = {
                "",
                " ",
                " 5s",
                "5s ",
                "5 s",
                "5sec",
                "5x",
                "5mss",
                "1.5s",
                "s",
                "ms",
                "--5s",
                "+-5s",
                "5_000ms",
                "\u0661\u0660s",
                "PT",
                "P",
                "Px",
                "PT10",
                "P1Y",
                "P1M",
                "PT5s ",
                "abc",
                "9223372036854775808",
                "9223372036854775807d",
                "106751991167301d"
            })
    void refusedTextsShouldBeRefusedByBootToo(String text) {
        assertThat(catchThrowable(() -> DurationStyle.detectAndParse(text)))
                .as("Spring Boot's DurationStyle refuses %s", text)
                .isInstanceOf(IllegalArgumentException.class);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> DurationParser.parse(text))
                .withMessageContaining("'" + text + "'");
    }
}
