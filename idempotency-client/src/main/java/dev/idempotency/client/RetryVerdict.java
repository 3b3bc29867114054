package dev.idempotency.client;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The classification of one failed attempt: retryable or not, of which {@link RetryKind}, and why.
 * Produced by {@link RetryPolicy#classify(String, boolean, int, String, Boolean)} and {@link
 * RetryPolicy#classify(String, boolean, Throwable)}, so that another retry library can use the same
 * allowlist. Immutable and thread-safe.
 */
public final class RetryVerdict {
  private final boolean retryable;
  private final @Nullable RetryKind kind;
  private final String reason;

  private RetryVerdict(boolean retryable, @Nullable RetryKind kind, String reason) {
    this.retryable = retryable;
    this.kind = kind;
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * A retryable failure.
   *
   * @param kind the kind of failure
   * @param reason why it may be retried
   * @return the verdict
   */
  public static RetryVerdict retry(RetryKind kind, String reason) {
    return new RetryVerdict(true, Objects.requireNonNull(kind, "kind"), reason);
  }

  /**
   * A failure (or response) that must not be retried.
   *
   * @param reason why not
   * @return the verdict
   */
  public static RetryVerdict doNotRetry(String reason) {
    return new RetryVerdict(false, null, reason);
  }

  /**
   * Whether another attempt may run (subject to attempts, deadline and budget).
   *
   * @return {@code true} if retryable
   */
  public boolean isRetryable() {
    return retryable;
  }

  /**
   * The kind of a retryable failure.
   *
   * @return the kind, or empty if not retryable
   */
  public Optional<RetryKind> kind() {
    return Optional.ofNullable(kind);
  }

  /**
   * A human-readable reason, such as {@code "HTTP 503 is on the retry allowlist"}.
   *
   * @return the reason
   */
  public String reason() {
    return reason;
  }

  @Override
  public String toString() {
    return (retryable ? "retry(" + kind + ")" : "doNotRetry") + ": " + reason;
  }
}
