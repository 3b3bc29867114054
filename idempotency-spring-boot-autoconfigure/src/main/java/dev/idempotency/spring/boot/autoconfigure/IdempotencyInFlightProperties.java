package dev.idempotency.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code idempotency.in-flight.*} properties: what a request gets while its key is in flight
 * under another request. A group of {@link IdempotencyProperties}.
 */
public class IdempotencyInFlightProperties {
  /** The defaults. */
  public IdempotencyInFlightProperties() {}

  /**
   * CONFLICT: 409 with Retry-After at once; WAIT: hold the request up to max-wait for the replay,
   * then 409; ACCEPTED: 202 with a status URL under status-path.
   */
  private Mode mode = Mode.CONFLICT;

  /** With WAIT: the longest a duplicate is held (it holds a request thread). */
  private Duration maxWait = Duration.ofSeconds(5);

  /** With WAIT: how often the held duplicate looks again. */
  private Duration pollInterval = Duration.ofMillis(100);

  /** With ACCEPTED: the path of the status endpoint. */
  private String statusPath = "/idempotency-requests";

  /** The Retry-After of the in-flight 409, capped by the owner's remaining lease. */
  private Duration retryAfter = Duration.ofSeconds(1);

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public String getStatusPath() {
    return statusPath;
  }

  public void setStatusPath(String statusPath) {
    this.statusPath = statusPath;
  }

  public Duration getRetryAfter() {
    return retryAfter;
  }

  public void setRetryAfter(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }

  /** What a duplicate of a request still in flight gets. */
  public enum Mode {
    /** 409 idempotency_request_in_flight with Retry-After, at once. */
    CONFLICT,
    /** Held up to max-wait for the first request's answer, replayed; then the 409. */
    WAIT,
    /** 202 Accepted with a Location to poll. */
    ACCEPTED
  }
}
