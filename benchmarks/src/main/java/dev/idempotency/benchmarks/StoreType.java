package dev.idempotency.benchmarks;

/**
 * The stores the benchmarks compare, chosen with {@code -p store=…}. Each creates its store and its baseline over
 * the same storage (for a database: the same connection pool).
 */
public enum StoreType {
  /** {@code InMemoryKeyStore} vs a bare {@code ConcurrentHashMap}. */
  IN_MEMORY {
    @Override
    Fixture open() {
      return new InMemoryFixture();
    }
  };

  abstract Fixture open() throws Exception;
}
