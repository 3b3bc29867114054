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
  /**
   * Takes the key as a property of the request body ({@code idempotency_key} and the like), as
   * Square's and Plaid's APIs do. This library's filter reads a header, so an API it serves must
   * honour a body key itself.
   */
  ACCEPTS_KEY_IN_BODY(Outcome.OK, "accepts the idempotency key in the body"),
  /**
   * Safe to retry by the overlay the caller gave ({@code safe}, with its reason): a search or a
   * render sent as POST, which changes nothing, or a call that sets the same state again (a revoke,
   * a cancel), whose retry changes nothing more than the first did.
   */
  CONFIRMED_SAFE(Outcome.OK, "safe to retry, confirmed in the overlay"),
  /**
   * No key, marked verified idempotent ({@code x-idempotent: true}) in the document: a PUT, a
   * DELETE, or a POST that changes nothing.
   */
  VERIFIED_IDEMPOTENT(Outcome.OK, "idempotent, marked verified"),
  /**
   * POST, PATCH or another method without a key, marked {@code x-retry-unsafe: true} with an {@code
   * x-retry-unsafe-reason} in the document, or {@code unsafe} with a reason in the overlay:
   * documented as unsafe to retry.
   */
  DOCUMENTED_RETRY_UNSAFE(Outcome.OK, "documented as unsafe to retry"),
  /**
   * PUT or DELETE without a key: idempotent by the method's promise only. A PUT that appends to a
   * log or a DELETE that decrements a counter breaks it; run {@code verify}, then mark it.
   */
  IDEMPOTENT_BY_METHOD(Outcome.WARNING, "idempotent by method: verify"),
  /**
   * A POST without a key whose path or operationId has the shape of a read ({@code /accounts/get},
   * {@code searchOrders}, {@code /markdown/render}): probably safe to retry, but only a person who
   * knows the API can say; confirm it in an overlay ({@code safe}), or record there that it is not.
   */
  LIKELY_READ_ONLY(Outcome.WARNING, "looks read-only: confirm in an overlay"),
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
