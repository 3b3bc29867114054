package dev.idempotency.client.internal;

import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Runs the caller's {@link BodyHandler} and {@link BodySubscriber} and tells their failures apart
 * from the connection's. The JDK wraps whatever a body subscriber throws in an {@code IOException},
 * which the classifier could not tell from a connection lost after sending; so every call into the
 * caller's code happens here, and a throwable from it (or a failed body that is not the upstream
 * error handed to the caller) is reported to {@code onCallerFailure} with its original identity,
 * the upstream is cancelled, and the body fails with it.
 */
final class CallerSubscriber<T> implements BodySubscriber<T> {
  private final Consumer<Throwable> onCallerFailure;
  private final CompletableFuture<T> body = new CompletableFuture<>();
  private final AtomicBoolean failed = new AtomicBoolean();

  /**
   * The caller's subscriber; null only when the caller's handler failed, and then nothing signals
   * it.
   */
  private final @Nullable BodySubscriber<T> caller;

  private volatile Flow.@Nullable Subscription subscription;

  /**
   * The connection's failure, handed to the caller's subscriber; its body failing with it is not
   * the caller's.
   */
  private volatile @Nullable Throwable upstreamError;

  CallerSubscriber(BodyHandler<T> handler, ResponseInfo info, Consumer<Throwable> onCallerFailure) {
    this.onCallerFailure = onCallerFailure;
    BodySubscriber<T> subscriber = null;
    try {
      subscriber = Objects.requireNonNull(handler.apply(info), "the body handler returned null");
      Objects.requireNonNull(subscriber.getBody(), "the body subscriber's getBody() returned null")
          .whenComplete(this::callerBodyDone);
    } catch (Throwable t) {
      fail(t);
    }
    this.caller = subscriber;
  }

  private void callerBodyDone(T value, @Nullable Throwable t) {
    if (t == null) {
      body.complete(value);
    } else if (causedBy(t, upstreamError)) {
      body.completeExceptionally(t);
    } else {
      fail(
          Classifier.unwrap(
              t)); // a mapping function's exception arrives wrapped in a CompletionException
    }
  }

  /** Bounded, because a cause chain can be a cycle. */
  private static boolean causedBy(Throwable t, @Nullable Throwable upstream) {
    Throwable c = t;
    for (int depth = 0; upstream != null && c != null && depth < 32; depth++, c = c.getCause()) {
      if (c == upstream) {
        return true;
      }
    }
    return false;
  }

  private void fail(Throwable t) {
    if (!failed.compareAndSet(false, true)) {
      return;
    }
    onCallerFailure.accept(t);
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    body.completeExceptionally(t);
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (failed.get()) {
      s.cancel(); // the caller failed before the body began: nothing of it will be read
      return;
    }
    callCaller(c -> c.onSubscribe(s));
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    callCaller(c -> c.onNext(item));
  }

  @Override
  public void onError(Throwable error) {
    upstreamError = error;
    callCaller(c -> c.onError(error));
  }

  @Override
  public void onComplete() {
    callCaller(BodySubscriber::onComplete);
  }

  /**
   * Signals the caller's subscriber, unless its code already failed; a throwable from it is the
   * caller's.
   */
  private void callCaller(Consumer<BodySubscriber<T>> signal) {
    if (failed.get()) {
      return;
    }
    BodySubscriber<T> subscriber =
        Objects.requireNonNull(
            caller, "the caller's subscriber is missing only when its handler failed");
    try {
      signal.accept(subscriber);
    } catch (Throwable t) {
      fail(t);
    }
  }
}
