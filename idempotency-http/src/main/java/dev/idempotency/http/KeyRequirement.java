package dev.idempotency.http;

/** Whether an endpoint demands an idempotency key. */
public enum KeyRequirement {
  /** No key → {@code 400 idempotency_key_missing}; the application does not run. */
  REQUIRED,
  /**
   * No key → the request passes through with no idempotency at all; a key, when sent, is honoured.
   */
  OPTIONAL
}
