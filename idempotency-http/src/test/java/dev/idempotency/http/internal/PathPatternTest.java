package dev.idempotency.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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
  }

  /**
   * Every spelling a framework may route to the same handler matches: a trailing slash, empty
   * segments, dot segments, path parameters, and letters in another case (Jersey and Spring route
   * {@code /payments/} to the handler of {@code /payments}; some deployments match paths ignoring
   * case).
   */
  @Test
  void spellingsThatRouteToTheSameHandlerMatch() {
    for (String path :
        List.of(
            "/payments",
            "/payments/",
            "//payments",
            "/payments//",
            "/./payments",
            "/payments/.",
            "/x/../payments",
            "/../payments",
            "/payments;jsessionid=1",
            "/payments;a=b/",
            "/PAYMENTS",
            "/Payments/")) {
      assertThat(PathPattern.of("/payments").matches(path))
          .as(path + " against /payments")
          .isTrue();
    }
    for (String path : List.of("/payments/1/", "/payments//1", "/payments/1;v=2", "/PAYMENTS/1")) {
      assertThat(PathPattern.of("/payments/*").matches(path))
          .as(path + " against /payments/*")
          .isTrue();
    }
    assertThat(PathPattern.of("/payments/*").matches("/payments/"))
        .as("/payments/ has no id segment")
        .isFalse();
    assertThat(PathPattern.of("/payments").matches("/payments/1")).isFalse();
    assertThat(PathPattern.of("/payments").matches("/paymentsx")).isFalse();
    assertThat(PathPattern.of("/payments").matches("/payments/.."))
        .as("/payments/.. is the root")
        .isFalse();
    assertThat(PathPattern.of("/").matches("/")).isTrue();
    assertThat(PathPattern.of("/").matches("//")).isTrue();
  }
}
