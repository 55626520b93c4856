package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import org.junit.jupiter.api.Test;

class FencedEndpointExceptionResolverTests {

    private final FencingTokenRejectedException database =
            new FencingTokenRejectedException("order:42", 5, 9L, "token 5 is older than 9", RefusedBy.FENCE_TABLE);

    @Test
    void refusalIsFoundAmongCausesAndSuppressedExceptions() {
        IllegalStateException failure = new IllegalStateException("call failed");
        failure.addSuppressed(new IllegalStateException("wrapped", this.database));

        assertThat(FencedEndpointExceptionResolver.rejection(failure)).isSameAs(this.database);
        assertThat(FencedEndpointExceptionResolver.rejection(new IllegalStateException("unrelated")))
                .isNull();
    }

    @Test
    void refusalThatKnowsTheAcceptedTokenIsPreferredToAWrapperThatDroppedIt() {
        FencingTokenRejectedException wrapper =
                new FencingTokenRejectedException("order:42", 5, "the application's own refusal");
        wrapper.initCause(this.database);

        assertThat(FencedEndpointExceptionResolver.rejection(wrapper)).isSameAs(this.database);
    }
}
