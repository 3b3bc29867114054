package dev.idempotency.testing;

import jakarta.servlet.Filter;
import java.net.URI;

/**
 * {@link CountingConfirmApp} with a {@link FaultInjectingProxy} in front of it, and whatever the
 * filter needs closed after both (the engine, the store): the set-up of every client integration's
 * end-to-end test, in one value that closes in the right order.
 */
public final class ProxiedConfirmApp implements AutoCloseable {
  /** The application behind the proxy. */
  public final CountingConfirmApp jetty;

  /** The proxy the client talks to. */
  public final FaultInjectingProxy proxy;

  private final AutoCloseable[] alsoClose;

  private ProxiedConfirmApp(
      CountingConfirmApp jetty, FaultInjectingProxy proxy, AutoCloseable[] alsoClose) {
    this.jetty = jetty;
    this.proxy = proxy;
    this.alsoClose = alsoClose.clone();
  }

  /**
   * Starts the application with {@code idempotencyFilter}, then the proxy in front of it.
   *
   * @param idempotencyFilter the filter under test
   * @param alsoClose closed after the proxy and Jetty, in order (the engine, the store)
   * @return the running pair
   * @throws Exception if Jetty or the proxy does not start (what started is closed)
   */
  public static ProxiedConfirmApp start(Filter idempotencyFilter, AutoCloseable... alsoClose)
      throws Exception {
    CountingConfirmApp jetty = CountingConfirmApp.start(idempotencyFilter);
    try {
      return new ProxiedConfirmApp(jetty, FaultInjectingProxy.start(jetty.port()), alsoClose);
    } catch (Exception | Error e) {
      jetty.close();
      throw e;
    }
  }

  /**
   * The address of a path through the proxy.
   *
   * @param path the path, starting with {@code /}
   * @return {@code http://127.0.0.1:<proxy port><path>}
   */
  public URI uri(String path) {
    return proxy.uri(path);
  }

  /**
   * How many times the application's side effect ran.
   *
   * @return the count
   */
  public int effects() {
    return jetty.app.effects();
  }

  /**
   * Closes the proxy, Jetty, then {@code alsoClose} in order, each even if one before it failed.
   */
  @Override
  public void close() {
    Exception failure = null;
    for (AutoCloseable c : closingOrder()) {
      try {
        c.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw new IllegalStateException("closing the test servers failed", failure);
    }
  }

  private AutoCloseable[] closingOrder() {
    AutoCloseable[] all = new AutoCloseable[alsoClose.length + 2];
    all[0] = proxy;
    all[1] = jetty;
    System.arraycopy(alsoClose, 0, all, 2, alsoClose.length);
    return all;
  }
}
