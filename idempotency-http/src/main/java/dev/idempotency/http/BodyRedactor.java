package dev.idempotency.http;

import dev.idempotency.StoredResponse;

/**
 * Rewrites the body that is <em>stored</em> for replay, for example to drop a one-time secret the
 * first caller may see but a replay must not. The first caller always receives the application's
 * original body; replays receive the redacted one. Must be thread-safe and deterministic.
 */
@FunctionalInterface
public interface BodyRedactor {
  /** Stores bodies unchanged: the default. */
  BodyRedactor NONE = response -> response.body();

  /**
   * Returns the body to store.
   *
   * @param response the live response, with its status and the headers that will be stored
   * @return the bytes to store instead of {@code response.body()}
   */
  byte[] redact(StoredResponse response);
}
