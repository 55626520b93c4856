package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.InvalidLockKeyException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.util.ReflectionUtils;

class SpelLockKeyResolverTests {

    private final SpelLockKeyResolver resolver = new SpelLockKeyResolver();

    private final Method ship = ReflectionUtils.findMethod(Orders.class, "ship", long.class, Customer.class);

    @BeforeEach
    void resetTripwire() {
        Tripwire.TRIPPED.set(false);
    }

    @Test
    void resolveShouldConcatenateParametersByName() {
        assertThat(this.resolver.resolve("'order:' + #orderId", this.ship, new Object[] {42L, new Customer("c-1")}))
                .isEqualTo("order:42");
    }

    @Test
    void resolveShouldOfferIndexedParameters() {
        Object[] arguments = {42L, new Customer("c-1")};
        assertThat(this.resolver.resolve("#p1.id + '/' + #a0", this.ship, arguments))
                .isEqualTo("c-1/42");
    }

    @Test
    void resolveShouldReadJavaBeanPropertiesOfParameters() {
        assertThat(this.resolver.resolve(
                        "'customer:' + #customer.id", this.ship, new Object[] {1L, new Customer("c-7")}))
                .isEqualTo("customer:c-7");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "T(dev.fencelock.interceptor.Tripwire).trip()",
                "T(java.lang.Runtime).getRuntime().exec('touch /tmp/fencelock-spel-tripped')",
                "new dev.fencelock.interceptor.Tripwire()",
                "new java.io.File('x')",
                "@tripwire.tripInstance()",
                "&tripwire",
                "#customer.getClass().forName('dev.fencelock.interceptor.Tripwire')",
                "#customer.id = 'changed'",
                "#orderId++",
            })
    void resolveShouldRefuseCodeExecutionAndRunNothing(String expression) {
        Customer customer = new Customer("c-1");
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.resolve(expression, this.ship, new Object[] {1L, customer}))
                .withMessageContaining(expression)
                .withMessageContaining("Orders.ship(long, Customer)");
        assertThat(Tripwire.TRIPPED).isFalse();
        assertThat(customer.getId()).isEqualTo("c-1");
        assertThat(Path.of("/tmp/fencelock-spel-tripped")).doesNotExist();
    }

    @Test
    void resolveShouldRefuseFileSystemAccess(@TempDir Path directory) {
        Path file = directory.resolve("created");
        String expression = "new java.io.File('" + file + "').createNewFile()";
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.resolve(expression, this.ship, new Object[] {1L, null}));
        assertThat(Files.exists(file)).isFalse();
    }

    @Test
    void resolveWhenResultIsNullShouldFail() {
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.resolve("#customer", this.ship, new Object[] {1L, null}))
                .withMessageContaining("\"#customer\"")
                .withMessageContaining("null");
    }

    @Test
    void resolveWhenResultIsNotAStringShouldFail() {
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.resolve("#orderId", this.ship, new Object[] {1L, null}))
                .withMessageContaining("java.lang.Long")
                .withMessageContaining("'order:' + #orderId");
    }

    @Test
    void resolveWhenVariableIsNotAParameterShouldNameTheParameters() {
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.validate("'order:' + #id", this.ship))
                .withMessageContaining("#id")
                .withMessageContaining("[orderId, customer]");
    }

    @Test
    void resolveWhenParameterNamesAreUnavailableShouldSuggestParametersFlagOrIndex() {
        SpelLockKeyResolver withoutNames = new SpelLockKeyResolver(new NoParameterNames());
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> withoutNames.validate("'order:' + #orderId", this.ship))
                .withMessageContaining("-parameters")
                .withMessageContaining("#p0");
        assertThat(withoutNames.resolve("'order:' + #p0", this.ship, new Object[] {5L, null}))
                .isEqualTo("order:5");
    }

    /**
     * Kotlin's discoverer names a suspend function's parameters but not the continuation the
     * compiler appends: fewer names than arguments.
     */
    @Test
    void resolveWhenTheLastArgumentHasNoNameShouldResolveTheNamedOnes() {
        SpelLockKeyResolver firstNamed = new SpelLockKeyResolver(new FirstParameterNamed());
        assertThat(firstNamed.resolve("'order:' + #orderId", this.ship, new Object[] {5L, null}))
                .isEqualTo("order:5");
    }

    @Test
    void resolveWhenExpressionDoesNotParseShouldNameIt() {
        assertThatExceptionOfType(InvalidLockKeyException.class)
                .isThrownBy(() -> this.resolver.validate("'order:' +", this.ship))
                .withMessageContaining("\"'order:' +\"")
                .withMessageContaining("not valid SpEL");
    }

    @Test
    void resolveShouldReadMapEntriesOfParameters() throws Exception {
        Method method = Orders.class.getMethod("tagged", Map.class);
        assertThat(this.resolver.resolve("'tag:' + #tags['region']", method, new Object[] {Map.of("region", "eu")}))
                .isEqualTo("tag:eu");
    }

    static class Orders {

        public void ship(long orderId, Customer customer) {}

        public void tagged(Map<String, String> tags) {}
    }

    public static class Customer {

        private String id;

        Customer(String id) {
            this.id = id;
        }

        public String getId() {
            return this.id;
        }

        public void setId(String id) {
            this.id = id;
        }
    }

    static class NoParameterNames implements org.springframework.core.ParameterNameDiscoverer {

        @Override
        public String[] getParameterNames(Method method) {
            return null;
        }

        @Override
        public String[] getParameterNames(java.lang.reflect.Constructor<?> ctor) {
            return null;
        }
    }

    static class FirstParameterNamed implements org.springframework.core.ParameterNameDiscoverer {

        @Override
        public String[] getParameterNames(Method method) {
            return new String[] {"orderId"};
        }

        @Override
        public String[] getParameterNames(java.lang.reflect.Constructor<?> ctor) {
            return null;
        }
    }
}
