package dev.idempotency.client.httpclient5;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.classic.ExecChain;

/**
 * The end of one attempt: when it comes before the response is read whole, the attempt's connection
 * is discarded, which ends a read that blocks however slowly its bytes trickle in (the socket
 * timeout restarts with every byte). Started when the attempt starts, so that it bounds the wait
 * for the head and the body together; stopped, and its task cancelled, when the attempt ends.
 */
final class AttemptTimer {
  /**
   * One daemon thread for every client in the process: a timer's task is a few instructions, and a
   * cancelled one is removed at once, so no attempt's scope outlives it.
   */
  private static final ScheduledThreadPoolExecutor TIMERS = timers();

  private final AtomicBoolean ended = new AtomicBoolean();
  private final AtomicBoolean cutOff = new AtomicBoolean();
  private final Duration timeout;
  private final ScheduledFuture<?> task;

  private AttemptTimer(ExecChain.Scope scope, Duration timeout) {
    this.timeout = timeout;
    this.task =
        TIMERS.schedule(
            () -> {
              if (ended.compareAndSet(false, true)) {
                cutOff.set(true);
                scope.execRuntime.discardEndpoint();
              }
            },
            timeout.toNanos(),
            TimeUnit.NANOSECONDS);
  }

  static AttemptTimer start(ExecChain.Scope scope, Duration timeout) {
    return new AttemptTimer(scope, timeout);
  }

  /**
   * Ends the timer.
   *
   * @return whether it had already cut the attempt off
   */
  boolean stop() {
    if (ended.compareAndSet(false, true)) {
      task.cancel(false);
      return false;
    }
    return cutOff.get();
  }

  /** How many timers are scheduled and neither fired nor cancelled, across the process. */
  static int pending() {
    return TIMERS.getQueue().size();
  }

  /** The failure of an attempt the timer cut off, reported as the timeout it is. */
  SocketTimeoutException timedOut(Exception failure) {
    SocketTimeoutException timedOut =
        new SocketTimeoutException(
            "the response was not complete when the attempt timeout of "
                + timeout.toMillis()
                + " ms ran out");
    timedOut.initCause(failure);
    return timedOut;
  }

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "idempotency-httpclient5-attempt-timer");
              t.setDaemon(true);
              return t;
            });
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  @Override
  public String toString() {
    return "AttemptTimer[" + timeout + (cutOff.get() ? ", cut off" : "") + "]";
  }
}
