package dev.idempotency.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code idempotency.stored-failures.*} properties: which responses are stored for replay. A
 * group of {@link IdempotencyProperties}.
 */
public class IdempotencyStoredFailuresProperties {
  /** The defaults. */
  public IdempotencyStoredFailuresProperties() {}

  /**
   * Statuses never stored: a response with one releases the key, so a retry runs anew (typically
   * 429). Empty: every response is stored and replayed, 4xx and 5xx included.
   */
  private List<Integer> excludeStatuses = new ArrayList<>();

  public List<Integer> getExcludeStatuses() {
    return excludeStatuses;
  }

  public void setExcludeStatuses(List<Integer> excludeStatuses) {
    this.excludeStatuses = excludeStatuses;
  }
}
