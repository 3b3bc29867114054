package dev.idempotency.http;

import dev.idempotency.StoredResponse;
import java.util.Objects;

/**
 * What {@link IdempotencyHttp#handle} decided: pass the request through untouched, or write a
 * response. Immutable.
 */
public sealed interface HttpResult {

  /**
   * The request is not guarded (a safe method, no endpoint rule matches, or an optional key is
   * absent): the adapter runs the application as if the handler were not there. Nothing was read
   * and nothing was claimed.
   *
   * @param reason why, for logs
   */
  record PassThrough(String reason) implements HttpResult {
    /**
     * @throws NullPointerException if {@code reason} is null
     */
    public PassThrough {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * Write {@code response}: status, headers in order, body bytes.
   *
   * @param response what to write
   * @param disposition where it comes from
   */
  record Respond(StoredResponse response, Disposition disposition) implements HttpResult {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Respond {
      Objects.requireNonNull(response, "response");
      Objects.requireNonNull(disposition, "disposition");
    }
  }

  /** Where a written response comes from. */
  enum Disposition {
    /** The application ran for this request; this is its live response, every header included. */
    EXECUTED,
    /**
     * A stored response, replayed verbatim with {@code Idempotent-Replayed: true}; the application
     * did not run.
     */
    REPLAYED,
    /** A problem (or the 202 of {@link InFlightResponse#ACCEPTED}); the application did not run. */
    REJECTED,
    /** The status endpoint's answer about an earlier request; the application did not run. */
    STATUS
  }
}
