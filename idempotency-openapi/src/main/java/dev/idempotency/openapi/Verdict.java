package dev.idempotency.openapi;

/**
 * What the document says about retrying one operation, and how that stands ({@link #outcome()}). An
 * operation gets exactly one verdict; the {@link Finding}s of its report add what else is wrong.
 */
public enum Verdict {
  /** GET, HEAD, OPTIONS or TRACE: safe by RFC 9110, so a retry has no effect to repeat. */
  SAFE_METHOD(Outcome.OK, "safe by RFC 9110"),
  /**
   * Declares the idempotency-key header (required or optional), or a convention says it takes one.
   */
  ACCEPTS_KEY(Outcome.OK, "accepts the idempotency key"),
  /** PUT or DELETE without a key that the document marks verified ({@code x-idempotent: true}). */
  VERIFIED_IDEMPOTENT(Outcome.OK, "idempotent, marked verified"),
  /**
   * POST, PATCH or another method without a key, marked {@code x-retry-unsafe: true} with an {@code
   * x-retry-unsafe-reason}: documented as unsafe to retry, as the seed's workflow allows.
   */
  DOCUMENTED_RETRY_UNSAFE(Outcome.OK, "documented as unsafe to retry"),
  /**
   * PUT or DELETE without a key: idempotent by the method's promise only. A PUT that appends to a
   * log or a DELETE that decrements a counter breaks it; run {@code verify}, then mark it.
   */
  IDEMPOTENT_BY_METHOD(Outcome.WARNING, "idempotent by method: verify"),
  /**
   * POST, PATCH or another method without a key and not documented as unsafe to retry: a retry
   * after a lost response repeats the effect.
   */
  NO_KEY(Outcome.FAILING, "no idempotency key, not documented as unsafe to retry");

  private final Outcome outcome;
  private final String label;

  Verdict(Outcome outcome, String label) {
    this.outcome = outcome;
    this.label = label;
  }

  /** How an operation with this verdict and no findings stands. */
  public Outcome outcome() {
    return outcome;
  }

  /** A short phrase for tables and Markdown. */
  public String label() {
    return label;
  }
}
