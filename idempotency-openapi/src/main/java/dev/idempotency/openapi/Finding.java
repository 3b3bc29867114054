package dev.idempotency.openapi;

import java.util.Objects;

/**
 * One more thing wrong with an operation besides its verdict: a key limit the server refuses, a
 * missing conflict response, a {@code 429} without {@code Retry-After}. Immutable.
 *
 * @param outcome {@link Outcome#WARNING} or {@link Outcome#FAILING}
 * @param code a stable, machine-readable name (for example {@code key_max_length_over_255}); the
 *     codes are listed in {@code docs/openapi.md}
 * @param message what is wrong and what to do, for a person
 */
public record Finding(Outcome outcome, String code, String message) {
  /** Validates the components. */
  public Finding {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    if (outcome == Outcome.OK) {
      throw new IllegalArgumentException("a finding is a WARNING or FAILING, not OK: " + code);
    }
  }
}
