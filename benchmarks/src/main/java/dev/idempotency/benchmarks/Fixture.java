package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;

/** One store under measurement and its baseline over the same storage, set up for a trial. */
interface Fixture extends AutoCloseable {
  KeyStore store();

  Baseline baseline();

  /** Empties the storage (between iterations). */
  default void clear() throws Exception {}

  /**
   * Stores {@code count} completed records with keys {@code prefix + 0 … prefix + (count - 1)}, as
   * fast as the storage allows (the default goes through the store's own claim and complete).
   */
  default void preload(
      String scope, String prefix, int count, byte[] fingerprint, StoredResponse response)
      throws Exception {
    java.time.Instant now = java.time.Instant.now();
    Fingerprint fp = Fingerprint.of(fingerprint);
    for (int i = 0; i < count; i++) {
      RecordId id = RecordId.of(scope, prefix + i);
      var claimed =
          (ClaimOutcome.Claimed)
              store()
                  .claim(
                      new ClaimRequest(
                          id,
                          fp,
                          now,
                          java.time.Duration.ofSeconds(30),
                          java.time.Duration.ofHours(24)));
      store().complete(id, claimed.fence(), response, now);
    }
  }

  /** Releases the storage (the JDBC fixture closes its pool); throws nothing checked. */
  @Override
  default void close() {}
}
