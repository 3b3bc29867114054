package dev.idempotency.client.resilience4j.internal;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.resilience4j.ResponseReader;
import io.github.resilience4j.retry.RetryConfig;
import org.jspecify.annotations.Nullable;

/**
 * The Resilience4j {@link RetryConfig} of one call, whose every decision is its {@link
 * RetryLoop}'s: the result and exception predicates ask the loop (the allowlist, the attempt bound,
 * the deadline, {@code Retry-After}, the budget, in that order), and the interval function hands
 * Resilience4j the wait the loop chose. Per call, because the deadline, the previous wait of
 * decorrelated jitter and the key belong to the call, and a Resilience4j config's functions see
 * none of them.
 *
 * @param <R> the response type
 */
public final class LoopRetryConfig<R> {
  private final RetryLoop loop;
  private final ResponseReader<R> reader;
  private RetryLoop.@Nullable Step last;

  public LoopRetryConfig(RetryLoop loop, ResponseReader<R> reader) {
    this.loop = loop;
    this.reader = reader;
  }

  /** Returns the config for one Resilience4j {@code Retry}, for this call only. */
  public RetryConfig config(int maxAttempts) {
    return RetryConfig.<R>custom()
        .maxAttempts(maxAttempts)
        .retryOnResult(this::retryResponse)
        .retryOnException(this::retryFailure)
        .intervalBiFunction((attempt, outcome) -> waitMillis())
        .failAfterMaxAttempts(false)
        .build();
  }

  /** The loop's last decision, or {@code null} before the first attempt ended. */
  public RetryLoop.@Nullable Step last() {
    return last;
  }

  private boolean retryResponse(R response) {
    int status = reader.status(response);
    byte[] body =
        RetryLoop.readsProblemBody(status, reader.header(response, "Content-Type"))
            ? reader.body(response)
            : null;
    return decided(
        loop.afterResponse(status, reader.header(response, "Retry-After"), body, response));
  }

  private boolean retryFailure(Throwable failure) {
    if (failure instanceof RetriesExhaustedException) {
      return false; // the deadline passed before an attempt could start: the loop's own stop
    }
    return decided(loop.afterFailure(failure));
  }

  private boolean decided(RetryLoop.Step step) {
    last = step;
    return step.action() == RetryLoop.Step.Action.RETRY;
  }

  private long waitMillis() {
    RetryLoop.Step step = last;
    return step == null ? 0 : step.delay().toMillis();
  }
}
