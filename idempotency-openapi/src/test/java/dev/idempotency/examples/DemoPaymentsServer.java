package dev.idempotency.examples;

import java.net.URI;

/**
 * The demo's payments API ({@link PaymentsApi}, package-private in examples), started in the test's
 * JVM on an ephemeral loopback port with its own embedded H2 database: with the idempotency filter
 * in front, or without it.
 */
public final class DemoPaymentsServer implements AutoCloseable {
  private final PaymentsApi api;

  private DemoPaymentsServer(PaymentsApi api) {
    this.api = api;
  }

  /** Starts the API; {@code database} names its H2 database, distinct per server. */
  public static DemoPaymentsServer start(boolean withFilter, String database) throws Exception {
    return new DemoPaymentsServer(
        PaymentsApi.start(DemoOptions.parse("serve"), withFilter, 0, database));
  }

  /** {@code http://127.0.0.1:<port>}. */
  public URI uri() {
    return api.uri();
  }

  /** How many charges the card network took: the side effects. */
  public long charges() {
    return api.cardNetwork.charges();
  }

  @Override
  public void close() {
    api.close();
  }
}
