package dev.idempotency.openapi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Verdict;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gates' keys stay within the document's declared limits (Open Banking's is 40 characters) and
 * differ from gate to gate however short the limit, so that no gate meets another's record.
 */
class GateKeysTest {
  private static GateContext context(@Nullable Integer maxLength, @Nullable String pattern) {
    KeyDeclaration key =
        new KeyDeclaration(
            KeyDeclaration.Location.HEADER,
            "x-idempotency-key",
            true,
            KeyDeclaration.Source.DOCUMENT,
            maxLength,
            pattern,
            null,
            Map.of(),
            null);
    OperationReport report =
        new OperationReport(
            "d", "POST", "/payments", null, Verdict.ACCEPTS_KEY, "keyed", key, List.of());
    RequestPlanner.Planned planned = RequestPlanner.Planned.of("/payments", "{}", null, null);
    // never sent to: the context only mints keys here
    try (HttpTarget target =
        HttpTarget.to("http://127.0.0.1:9", false, Duration.ofSeconds(1), Map.of())) {
      return new GateContext(target, report, key, planned, ApiOrigin.THIRD_PARTY);
    }
  }

  @ParameterizedTest(name = "maxLength {0}, pattern {1}")
  @CsvSource({"255, ", "40, '^(?!\\s)(.*)(\\S)$'", "10, ", "5, ", "36, '^[0-9a-f-]{36}$'"})
  void keysFitTheDeclaredLimitsAndDifferByGate(int maxLength, @Nullable String pattern) {
    GateContext c = context(maxLength, pattern);
    Set<String> keys = new HashSet<>();

    for (Gate g : Gate.values()) {
      String key = c.freshKey(g);
      assertThat(key.length()).as(key).isBetween(1, maxLength);
      assertThat(c.admits(key)).as(key).isTrue();
      keys.add(key);
    }

    assertThat(keys).hasSize(Gate.values().length);
  }
}
