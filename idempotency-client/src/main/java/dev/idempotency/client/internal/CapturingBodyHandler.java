package dev.idempotency.client.internal;

import dev.idempotency.client.RetryLoop;
import dev.idempotency.client.http.ResponseBodyTimeoutException;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * Wraps the caller's body handler for one attempt.
 *
 * <p>For the statuses whose classification can depend on a problem body (409, 429, 500, 502, 503,
 * 504) with a JSON content type, it buffers the body, reads {@code code} and {@code retryable}, and
 * then replays the same bytes into the caller's subscriber, so the caller still gets its own body
 * type. Every other response goes straight to the caller's subscriber.
 *
 * <p>It also keeps the attempt's timeout running through the body ({@link DeadlineSubscriber}), and
 * runs the caller's own handler and subscriber apart ({@link CallerSubscriber}), so that after a
 * failed attempt the adapter knows whether the caller's code failed ({@link #callerFailure()}), the
 * body timed out, or the connection failed.
 */
public final class CapturingBodyHandler<T>
    implements BodyHandler<CapturingBodyHandler.Captured<T>> {
  /** The caller's body with the problem members read from it. */
  public static final class Captured<T> {
    private final T body;
    private final ProblemDetails problem;

    Captured(T body, ProblemDetails problem) {
      this.body = body;
      this.problem = problem;
    }

    public T body() {
      return body;
    }

    public ProblemDetails problem() {
      return problem;
    }
  }

  private final BodyHandler<T> handler;
  private final Duration timeout;
  private final long startNanos = System.nanoTime();
  private volatile @Nullable Throwable callerFailure;
  private volatile @Nullable ResponseBodyTimeoutException bodyTimeout;

  /**
   * @param handler the caller's handler
   * @param timeout the attempt's timeout, from now; the same one the request carries for the time
   *     to the headers
   */
  public CapturingBodyHandler(BodyHandler<T> handler, Duration timeout) {
    this.handler = handler;
    this.timeout = timeout;
  }

  @Override
  public BodySubscriber<Captured<T>> apply(ResponseInfo info) {
    BodySubscriber<T> caller =
        new CallerSubscriber<>(handler, info, failure -> callerFailure = failure);
    BodySubscriber<Captured<T>> captured =
        mayCarryVerdict(info)
            ? new ProblemCapturing<>(caller)
            : BodySubscribers.mapping(caller, body -> new Captured<>(body, ProblemDetails.NONE));
    return new DeadlineSubscriber<>(
        captured,
        startNanos,
        nanos(timeout),
        () -> {
          ResponseBodyTimeoutException e =
              new ResponseBodyTimeoutException(info.statusCode(), timeout);
          bodyTimeout = e;
          return e;
        });
  }

  /**
   * What the caller's own handler or subscriber threw (or failed its body with) during this
   * attempt.
   *
   * @return the caller's failure, unchanged, or {@code null} if its code did not fail
   */
  public @Nullable Throwable callerFailure() {
    return callerFailure;
  }

  /**
   * The failure to classify for this attempt, which failed with {@code failure}: the body's timeout
   * if that is what ended it (the JDK re-creates the exception, losing its type), otherwise {@code
   * failure} itself.
   *
   * @param failure what the attempt failed with
   * @return the failure to classify
   */
  public Throwable attemptFailure(Throwable failure) {
    ResponseBodyTimeoutException t = bodyTimeout;
    return t != null ? t : failure;
  }

  private static long nanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static boolean mayCarryVerdict(ResponseInfo info) {
    return RetryLoop.readsProblemBody(
        info.statusCode(), info.headers().firstValue("Content-Type").orElse(null));
  }

  private static final class ProblemCapturing<T> implements BodySubscriber<Captured<T>> {
    private final BodySubscriber<byte[]> bytes = BodySubscribers.ofByteArray();
    private final CompletableFuture<Captured<T>> result;

    ProblemCapturing(BodySubscriber<T> user) {
      this.result =
          bytes
              .getBody()
              .toCompletableFuture()
              .thenCompose(
                  b -> {
                    ProblemDetails problem = ProblemDetails.parse(b);
                    user.onSubscribe(new Replay(user, b));
                    return user.getBody().thenApply(body -> new Captured<>(body, problem));
                  });
    }

    @Override
    public CompletionStage<Captured<T>> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      bytes.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      bytes.onNext(item);
    }

    @Override
    public void onError(Throwable throwable) {
      bytes.onError(throwable);
    }

    @Override
    public void onComplete() {
      bytes.onComplete();
    }
  }

  /** Delivers a buffered body once, on the first positive demand. */
  private static final class Replay implements Flow.Subscription {
    private final Flow.Subscriber<List<ByteBuffer>> subscriber;
    private final byte[] data;
    private boolean done;

    Replay(Flow.Subscriber<List<ByteBuffer>> subscriber, byte[] data) {
      this.subscriber = subscriber;
      this.data = data;
    }

    @Override
    public synchronized void request(long n) {
      if (done) {
        return;
      }
      done = true;
      if (n <= 0) {
        subscriber.onError(new IllegalArgumentException("non-positive subscription request: " + n));
        return;
      }
      if (data.length > 0) {
        subscriber.onNext(List.of(ByteBuffer.wrap(data)));
      }
      subscriber.onComplete();
    }

    @Override
    public synchronized void cancel() {
      done = true;
    }
  }
}
