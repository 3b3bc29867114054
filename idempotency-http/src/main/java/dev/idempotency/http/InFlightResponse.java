package dev.idempotency.http;

/**
 * What a request gets when its key is still in flight under another request, once the engine's
 * {@link dev.idempotency.core.InFlightPolicy} has given up waiting (it does not wait by default;
 * configure {@code InFlightPolicy.waitUpTo} on the engine for a bounded wait that usually ends in
 * the replay).
 */
public enum InFlightResponse {
  /** {@code 409 idempotency_request_in_flight} with {@code Retry-After}: the default. */
  CONFLICT,
  /**
   * {@code 202 Accepted} with {@code Location} and {@code Retry-After} pointing at the status
   * endpoint, which answers {@code 202} while the request runs and replays its response once it
   * completed.
   */
  ACCEPTED
}
