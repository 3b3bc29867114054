package dev.idempotency.core;

import dev.idempotency.StoredResponse;
import java.util.Arrays;
import java.util.Objects;

/**
 * Which responses are stored for replay. The default, {@link #storeAll()}, is Stripe's v1 rule:
 * every response the operation produced, 4xx and 5xx included, is stored and replayed verbatim, so
 * a retry sees exactly what the first attempt would have seen. A response the policy excludes
 * releases the key (when no phase committed), so a retry runs anew: the usual exclusion is {@code
 * 429}, which says "not processed, come back later".
 *
 * <p>A {@linkplain StoredResponse#notStoredMarker not-stored marker} the operation returns is not
 * judged either: it stands for an answer the operation produced but the store cannot keep, and is
 * stored as it is (the operation judged the answer it stands for), so that a retry does not run the
 * work again. An operation that <em>throws</em> is not governed by this policy: it released the key
 * if nothing committed, else left it in flight (see {@link Operation#run}). Implementations must be
 * thread-safe and quick.
 */
@FunctionalInterface
public interface StoredResponsePolicy {

  /** Whether to store {@code response} for replay. */
  boolean shouldStore(StoredResponse response);

  /** Store every response (the default). */
  static StoredResponsePolicy storeAll() {
    return response -> true;
  }

  /**
   * Store every response except those with one of {@code statuses}.
   *
   * @throws IllegalArgumentException if a status is outside 100 to 999
   */
  static StoredResponsePolicy storeAllExcept(int... statuses) {
    Objects.requireNonNull(statuses, "statuses");
    int[] excluded = statuses.clone();
    for (int s : excluded) {
      if (s < 100 || s > 999) {
        throw new IllegalArgumentException(
            "storedResponsePolicy status must be 100 to 999, but was " + s);
      }
    }
    Arrays.sort(excluded);
    return response -> Arrays.binarySearch(excluded, response.status()) < 0;
  }
}
