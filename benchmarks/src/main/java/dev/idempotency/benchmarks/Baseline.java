package dev.idempotency.benchmarks;

/**
 * The least work a store must do for each outcome, written directly against the storage: what our
 * store's time is divided by to give the published ratio.
 */
interface Baseline {
  /** Claims a fresh key and completes it: the two writes every first request costs. */
  void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response);

  /** Reads a completed key and returns its response if the fingerprint matches (a replay). */
  byte[] replay(String scope, String key, byte[] fingerprint);

  /** Reads a completed key whose fingerprint differs (a mismatch); returns whether it was one. */
  boolean mismatch(String scope, String key, byte[] fingerprint);
}
