package dev.idempotency.openapi;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The charges API of {@code specs/charges.yaml}, for the gates: {@code POST /charges} creates a
 * charge (the side effect), {@code GET /charges} lists them (the probe). A request with {@code
 * X-Slow} is held, before it charges, until another request with its key has been answered (seen by
 * {@link #arrivals()}, the outermost filter) or has come to charge too: so "while the first still
 * runs" is a fact, not a race, whatever answers the second. Without a layer of its own ({@link
 * Layer#NONE}) it is the application behind this library's filter; the other layers are the broken
 * idempotency implementations the gates must catch.
 */
final class ChargesApi extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** How long a slow request waits for the second request at most. */
  private static final long SLOW_MILLIS = 5_000;

  /** The idempotency layer in front of the charge. */
  enum Layer {
    /** None: this library's filter stands in front. */
    NONE,
    /**
     * Checks for the key, then inserts it: two requests that check before either inserts both run.
     * The window between the two is held open until a second request has checked too (or 300 ms),
     * so the race is certain when requests come together, as a real one is under load.
     */
    CHECK_THEN_INSERT,
    /** Claims atomically but keeps no fingerprint: the same key with another body is replayed. */
    NO_FINGERPRINT,
    /** Absent or complete, nothing in between: a request while the first runs runs again. */
    BINARY_STATE
  }

  /** What a key holds: the fingerprint (the body), and the answer once there is one. */
  private record Entry(String body, String answer) {
    boolean running() {
      return answer.isEmpty();
    }
  }

  private final transient Layer layer;
  private final transient List<String> charges = new CopyOnWriteArrayList<>();
  private final transient AtomicInteger ids = new AtomicInteger();
  private final transient Map<String, Entry> keys = new ConcurrentHashMap<>();
  private final transient Map<String, CountDownLatch> released = new ConcurrentHashMap<>();
  private final transient Map<String, CountDownLatch> checked = new ConcurrentHashMap<>();
  private final transient Map<String, CountDownLatch> charging = new ConcurrentHashMap<>();

  ChargesApi(Layer layer) {
    this.layer = layer;
  }

  /** The charges made: the side effects. */
  int charges() {
    return charges.size();
  }

  /**
   * The outermost filter: once a request with a key has been answered, a slow request with that key
   * may go on.
   */
  Filter arrivals() {
    return new Filter() {
      @Override
      public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
          throws IOException, ServletException {
        String key = ((HttpServletRequest) req).getHeader("Idempotency-Key");
        try {
          chain.doFilter(req, res);
        } finally {
          if (key != null) {
            released(key).countDown();
          }
        }
      }
    };
  }

  private CountDownLatch released(String key) {
    return released.computeIfAbsent(key, k -> new CountDownLatch(1));
  }

  private static CountDownLatch latch(Map<String, CountDownLatch> latches, String key) {
    return latches.computeIfAbsent(key, k -> new CountDownLatch(2));
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
    res.setContentType("application/json");
    if (req.getMethod().equals("GET")) {
      res.getWriter().write("[" + String.join(",", charges) + "]");
      return;
    }
    String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String key = req.getHeader("Idempotency-Key");
    boolean slow = req.getHeader("X-Slow") != null;
    if (layer == Layer.NONE) {
      answer(res, 201, charge(body, key, slow), false);
      return;
    }
    if (key == null || key.isEmpty() || key.length() > 255 || !key.matches("[\\x21-\\x7E]+")) {
      answer(res, 400, "{\"error\":\"idempotency_key_invalid\"}", false);
      return;
    }
    Entry seen =
        layer == Layer.NO_FINGERPRINT ? keys.putIfAbsent(key, new Entry(body, "")) : keys.get(key);
    if (seen == null) {
      if (layer == Layer.CHECK_THEN_INSERT) {
        CountDownLatch both = latch(checked, key);
        both.countDown();
        await(both, 300);
        keys.put(key, new Entry(body, ""));
      }
      String answer = charge(body, key, slow);
      keys.put(key, new Entry(body, answer));
      answer(res, 201, answer, false);
    } else if (layer != Layer.NO_FINGERPRINT && !seen.body().equals(body)) {
      answer(res, 409, "{\"error\":\"idempotency_key_reused\"}", false);
    } else if (seen.running()) {
      res.setHeader("Retry-After", "1");
      answer(res, 409, "{\"error\":\"idempotency_request_in_flight\"}", false);
    } else {
      answer(res, 201, seen.answer(), true);
    }
  }

  /**
   * The side effect: one charge more. A slow request first waits until another with its key has
   * been answered, or has come here to charge too (then both run: there was nothing to stop it).
   */
  private String charge(String body, String key, boolean slow) {
    if (slow && key != null) {
      CountDownLatch together = latch(charging, key);
      together.countDown();
      if (together.getCount() == 0) {
        released(key).countDown();
      }
      await(released(key), SLOW_MILLIS);
    }
    String charge = "{\"id\":\"ch_" + ids.incrementAndGet() + "\",\"request\":" + body + "}";
    charges.add(charge);
    return charge;
  }

  private static void answer(HttpServletResponse res, int status, String body, boolean replay)
      throws IOException {
    res.setStatus(status);
    if (replay) {
      res.setHeader("Idempotent-Replayed", "true");
    }
    res.getWriter().write(body);
  }

  private static void await(CountDownLatch latch, long millis) {
    try {
      latch.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
