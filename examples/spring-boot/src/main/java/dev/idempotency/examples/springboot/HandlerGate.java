package dev.idempotency.examples.springboot;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Lets a test hold the payment handler while duplicates arrive: closed, the handler waits (at most
 * 30 s) until it is opened. Open by default, so the app runs as any other.
 */
@Component
class HandlerGate {
  private volatile @Nullable CountDownLatch closed;
  private final CountDownLatch entered = new CountDownLatch(0);
  private volatile CountDownLatch arrivals = entered;

  /** Holds every handler that passes through until {@link #open()}. */
  synchronized void close() {
    closed = new CountDownLatch(1);
    arrivals = new CountDownLatch(1);
  }

  /** Releases the held handlers. */
  synchronized void open() {
    CountDownLatch c = closed;
    closed = null;
    if (c != null) {
      c.countDown();
    }
  }

  /** Waits until a handler is held, at most {@code seconds}. */
  boolean awaitHeld(long seconds) throws InterruptedException {
    return arrivals.await(seconds, TimeUnit.SECONDS);
  }

  void passThrough() throws InterruptedException {
    CountDownLatch c = closed;
    if (c != null) {
      arrivals.countDown();
      if (!c.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    }
  }
}
