package dev.idempotency.client.internal;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Carries an attempt's timeout through the response body, where the JDK's request timeout no longer
 * runs. When it runs out before the body is complete it cancels the upstream (the JDK closes the
 * connection), hands the timeout to the downstream subscriber as {@code onError} (so a caller
 * reading a streaming body gets it from its next read), and fails the body if it is not complete
 * yet. The timer lives until both the upstream has ended and the body is complete, so neither a
 * body that never ends nor a subscriber that never completes its body holds the caller.
 *
 * <p>The JDK signals serially; the timer fires on another thread. Every signal to the downstream
 * therefore goes through one queue drained by one thread at a time, so the downstream never sees
 * {@code onError} concurrently with {@code onNext}, and nothing after its terminal signal. The
 * timer waits on the JDK's shared delayer and is cancelled when the exchange ends, so a normal
 * response costs no thread.
 */
final class DeadlineSubscriber<T> implements BodySubscriber<T> {
  private final BodySubscriber<T> downstream;
  private final long startNanos;
  private final long timeoutNanos;
  private final Supplier<Throwable> onTimeout;
  private final CompletableFuture<T> body = new CompletableFuture<>();
  private final CompletableFuture<Void> timer = new CompletableFuture<>();

  /**
   * Set once by whichever comes first: the upstream's end, the downstream's cancel, or the timeout.
   */
  private final AtomicBoolean upstreamDone = new AtomicBoolean();

  private final Queue<Runnable> signals = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();
  private volatile Flow.@Nullable Subscription upstream;

  /** Read and written only while draining {@link #signals}, which one thread at a time does. */
  private boolean terminated;

  /**
   * @param startNanos {@link System#nanoTime()} when the attempt started
   * @param timeoutNanos the attempt's timeout, measured from {@code startNanos}
   * @param onTimeout called when the time runs out before the body is complete; returns the
   *     exception to fail it with
   */
  DeadlineSubscriber(
      BodySubscriber<T> downstream,
      long startNanos,
      long timeoutNanos,
      Supplier<Throwable> onTimeout) {
    this.downstream = downstream;
    this.startNanos = startNanos;
    this.timeoutNanos = timeoutNanos;
    this.onTimeout = onTimeout;
    downstream
        .getBody()
        .whenComplete(
            (value, failure) -> {
              if (failure == null) {
                body.complete(value);
              } else {
                body.completeExceptionally(failure);
              }
              stopTimerIfDone();
            });
  }

  @Override
  public CompletionStage<T> getBody() {
    return body;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    upstream = subscription;
    signal(
        () ->
            downstream.onSubscribe(
                new Flow.Subscription() {
                  @Override
                  public void request(long n) {
                    subscription.request(n);
                  }

                  @Override
                  public void cancel() {
                    upstreamDone.set(
                        true); // the caller let go of the body (closed its stream): nothing left to
                    // time
                    subscription.cancel();
                    stopTimerIfDone();
                  }
                }));
    long left = Math.max(0, timeoutNanos - (System.nanoTime() - startNanos));
    // the callback only hands the expiry to another thread, and expire() ends the body even when it
    // fails itself: neither future below holds a failure nobody else sees
    var unused =
        timer
            .orTimeout(left, TimeUnit.NANOSECONDS)
            .whenComplete(
                (ignored, failure) -> {
                  if (failure instanceof TimeoutException) {
                    // off the JDK's single delayer thread: expiring runs the downstream's onError,
                    // which may be slow
                    var unusedExpiry = CompletableFuture.runAsync(this::expire);
                  }
                });
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    signal(
        () -> {
          if (!terminated) {
            downstream.onNext(item);
          }
        });
  }

  @Override
  public void onError(Throwable error) {
    if (upstreamDone.compareAndSet(false, true)) {
      terminate(() -> downstream.onError(error));
    }
    stopTimerIfDone();
  }

  @Override
  public void onComplete() {
    if (upstreamDone.compareAndSet(false, true)) {
      terminate(downstream::onComplete);
    }
    stopTimerIfDone();
  }

  private void expire() {
    try {
      boolean cut = upstreamDone.compareAndSet(false, true);
      if (!cut && body.isDone()) {
        return;
      }
      Throwable timeout = onTimeout.get();
      if (cut) {
        cancelUpstream();
        terminate(() -> downstream.onError(timeout));
      }
      body.completeExceptionally(timeout);
    } catch (RuntimeException | Error e) {
      // expiry runs where nobody waits for it: a failure of its own must still end the body the
      // caller waits for
      body.completeExceptionally(e);
    }
  }

  /** Cancels the upstream, which subscribed before the timer started and before any signal. */
  private void cancelUpstream() {
    Objects.requireNonNull(
            upstream, "the upstream subscribes before the timer starts and before any signal")
        .cancel();
  }

  private void terminate(Runnable terminal) {
    signal(
        () -> {
          if (!terminated) {
            terminated = true;
            terminal.run();
          }
        });
  }

  private void stopTimerIfDone() {
    if (upstreamDone.get() && body.isDone()) {
      timer.complete(null); // cancels the scheduled timeout
    }
  }

  /**
   * Runs {@code signal} now, or after the signal another thread is delivering; never two at once.
   */
  private void signal(Runnable signal) {
    signals.add(signal);
    if (pending.getAndIncrement() != 0) {
      return;
    }
    do {
      Runnable next = signals.poll();
      try {
        next.run();
      } catch (RuntimeException | Error e) {
        // the downstream is this module's own code; a failure there ends the body instead of
        // wedging the queue
        if (upstreamDone.compareAndSet(false, true)) {
          cancelUpstream();
        }
        terminated = true;
        body.completeExceptionally(e);
      }
    } while (pending.decrementAndGet() != 0);
  }
}
