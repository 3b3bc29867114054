package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.RecordId;
import dev.idempotency.spi.KeyStore;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of the key store: {@code UP} when it answers a read ({@link KeyStore#lookup} of a
 * record no request uses), {@code DOWN} with the exception when it does not, as every guarded
 * request then gets 503. The read takes as long as the store's own timeouts allow (for the JDBC
 * store, the pool's connection timeout and the statement timeout).
 */
public final class KeyStoreHealthIndicator extends AbstractHealthIndicator {
  /**
   * The record read: its scope is not one an authenticated caller's name could take by accident.
   */
  static final RecordId PROBE = RecordId.of("idempotency-health-probe", "probe");

  private final KeyStore store;

  /** The health of {@code store}. */
  public KeyStoreHealthIndicator(KeyStore store) {
    super("the idempotency key store did not answer");
    this.store = Objects.requireNonNull(store, "store");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    store.lookup(PROBE);
    builder.up().withDetail("store", store.toString());
  }
}
