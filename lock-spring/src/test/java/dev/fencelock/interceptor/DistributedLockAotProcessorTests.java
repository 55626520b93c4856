package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;

/** The hints a native image needs for the {@code @DistributedLock} methods of a bean. */
class DistributedLockAotProcessorTests {

    @Test
    void isRegisteredForSpringsAotProcessing() {
        assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class))
                .hasAtLeastOneElementOfType(DistributedLockAotProcessor.class);
    }

    @Test
    void beanWithLockedMethodsGetsHintsForTheAnnotationTheMethodsAndTheirParameterTypes() throws Exception {
        RuntimeHints hints = process(OrderShipping.class);

        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(DistributedLock.class)
                        .withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(OrderShipping.class.getMethod("ship", Order.class, int.class)))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("id")))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Integer.class)).rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(OrderShipping.class.getMethod("track", String.class)))
                .rejects(hints);
    }

    @Test
    void beanWithoutLockedMethodsContributesNothing() {
        RegisteredBean bean = registered(Order.class);
        assertThat(new DistributedLockAotProcessor().processAheadOfTime(bean)).isNull();
    }

    private static RuntimeHints process(Class<?> type) {
        BeanRegistrationAotContribution contribution =
                new DistributedLockAotProcessor().processAheadOfTime(registered(type));
        assertThat(contribution).isNotNull();
        DefaultGenerationContext generation =
                new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(type)), new InMemoryGeneratedFiles());
        contribution.applyTo(generation, null);
        return generation.getRuntimeHints();
    }

    private static RegisteredBean registered(Class<?> type) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(type));
        return RegisteredBean.of(beanFactory, "bean");
    }

    public record Order(String id) {}

    public static class OrderShipping {

        @DistributedLock(key = "'order:' + #order.id()")
        public void ship(Order order, int parcels) {}

        public void track(String id) {}
    }
}
