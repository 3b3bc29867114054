package dev.idempotency.openapi;

/**
 * Whose API the document describes, which decides whose rules the audit applies and what the
 * integrator Markdown may state.
 */
public enum ApiOrigin {
  /**
   * An API served by this library: its key syntax (1 to 255 printable ASCII characters) is checked
   * against the document's key schema, and the Markdown states this library's answers (the {@code
   * 409} problem codes, {@code Idempotent-Replayed}, the replay window of the engine).
   */
  OWN,
  /**
   * Someone else's API (a payment provider's, a bank's): only what its document says is used. Its
   * key limits are its own, so they are not checked against this library's; the Markdown quotes the
   * document's key, its description and its documented answers, and states no window or answer the
   * document does not.
   */
  THIRD_PARTY
}
