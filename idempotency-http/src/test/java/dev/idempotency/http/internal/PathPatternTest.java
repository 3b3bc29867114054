package dev.idempotency.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PathPatternTest {
  @Test
  void literalSingleSegmentAndRest() {
    assertThat(PathPattern.of("/**").matches("/anything/at/all")).isTrue();
    assertThat(PathPattern.of("/**").matches("/")).isTrue();
    assertThat(PathPattern.of("/payments/**").matches("/payments")).isTrue();
    assertThat(PathPattern.of("/payments/**").matches("/payments/1/refunds")).isTrue();
    assertThat(PathPattern.of("/payments/**").matches("/paymentsX")).isFalse();
    assertThat(PathPattern.of("/payments/*").matches("/payments/1")).isTrue();
    assertThat(PathPattern.of("/payments/*").matches("/payments/1/refunds")).isFalse();
    assertThat(PathPattern.of("/payments/*").matches("/payments")).isFalse();
    assertThat(PathPattern.of("/a/*/c").matches("/a/b/c")).isTrue();
    assertThat(PathPattern.of("/a").matches("/a/")).isFalse();
  }
}
