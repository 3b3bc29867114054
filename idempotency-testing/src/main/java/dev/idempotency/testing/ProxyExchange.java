package dev.idempotency.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One request as it arrived at {@link FaultInjectingProxy}, the fault it got, and what the server
 * answered (whether or not the client got the answer): the record tests count attempts at the wire
 * with, below every retry layer.
 */
public final class ProxyExchange {
  private final int index;
  private final String method;
  private final String path;
  private final List<String> idempotencyKeys;
  private final Fault fault;
  private final CountDownLatch upstreamDone = new CountDownLatch(1);
  private volatile int upstreamStatus = -1;
  private volatile Map<String, String> upstreamHeaders = Map.of();
  private volatile byte[] upstreamBody = new byte[0];

  ProxyExchange(int index, String method, String path, List<String> idempotencyKeys, Fault fault) {
    this.index = index;
    this.method = method;
    this.path = path;
    this.idempotencyKeys = List.copyOf(idempotencyKeys);
    this.fault = fault;
  }

  /**
   * The request's place in arrival order.
   *
   * @return 0 for the first request the proxy received
   */
  public int index() {
    return index;
  }

  /**
   * The request's method.
   *
   * @return the method, such as {@code POST}
   */
  public String method() {
    return method;
  }

  /**
   * The request's target.
   *
   * @return the path, with the query if any
   */
  public String path() {
    return path;
  }

  /**
   * Every {@code Idempotency-Key} header value on the request, in order: a well-behaved client
   * sends one.
   *
   * @return the values, possibly none
   */
  public List<String> idempotencyKeys() {
    return idempotencyKeys;
  }

  /**
   * What the proxy did with the request.
   *
   * @return the fault
   */
  public Fault fault() {
    return fault;
  }

  /**
   * The status the server answered, whether or not the client got it.
   *
   * @return the status; -1 if the request was not forwarded, or the response has not arrived yet
   */
  public int upstreamStatus() {
    return upstreamStatus;
  }

  /**
   * A header of the server's response.
   *
   * @param name the header's name, in any case
   * @return its first value, or null if the response has none (or has not arrived)
   */
  public String upstreamHeader(String name) {
    return upstreamHeaders.get(name.toLowerCase(Locale.ROOT));
  }

  /**
   * The body of the server's response.
   *
   * @return the body decoded as UTF-8; empty if none arrived
   */
  public String upstreamBody() {
    return new String(upstreamBody, StandardCharsets.UTF_8);
  }

  /**
   * Waits until the server's whole response to this request has arrived at the proxy.
   *
   * @param timeout how long to wait at most
   * @return true if it arrived, false if the timeout passed first
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitUpstream(Duration timeout) throws InterruptedException {
    return upstreamDone.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Records the server's whole response, and wakes {@link #awaitUpstream} waiters. */
  void upstream(int status, Map<String, String> headers, byte[] body) {
    upstreamHeaders = Map.copyOf(headers);
    upstreamBody = body.clone();
    upstreamStatus = status;
    upstreamDone.countDown();
  }

  int upstreamBodyLength() {
    return upstreamBody.length;
  }

  @Override
  public String toString() {
    return "#"
        + index
        + " "
        + method
        + " "
        + path
        + " keys="
        + idempotencyKeys
        + " "
        + fault
        + " -> "
        + upstreamStatus;
  }
}
