package dev.idempotency.client.httpclient5;

import dev.idempotency.client.RequestNotProcessedException;
import java.io.IOException;
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

  /** Whether the attempt held a connection from the pool when the timer cut it off. */
  private volatile boolean leased;

  private final Duration timeout;
  private final ScheduledFuture<?> task;

  private AttemptTimer(ExecChain.Scope scope, Duration timeout) {
    this.timeout = timeout;
    this.task =
        TIMERS.schedule(
            () -> {
              if (ended.compareAndSet(false, true)) {
                leased = scope.execRuntime.isEndpointAcquired(); // before the discard drops it
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

  /**
   * The failure of an attempt the timer cut off, reported as what it is: a request that never left
   * (cut off while it waited for a pooled connection, or while it connected), or a response not
   * complete in time, a timeout after the request may have been sent.
   *
   * @param failure what the cut-off attempt threw
   * @param sending whether the request's head had started on its way: HttpCore's request executor
   *     sets the context's endpoint details just before it writes the head, so the attempt's own
   *     thread reads that, not this timer's
   */
  IOException timedOut(Exception failure, boolean sending) {
    String ranOut = "the attempt timeout of " + timeout.toMillis() + " ms ran out";
    if (!sending) {
      return new RequestNotProcessedException(
          ranOut
              + (leased ? " while it connected" : " while it waited for a pooled connection")
              + ": the request was never sent",
          failure);
    }
    SocketTimeoutException timedOut =
        new SocketTimeoutException("the response was not complete when " + ranOut);
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
