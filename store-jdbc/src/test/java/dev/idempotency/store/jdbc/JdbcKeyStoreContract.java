package dev.idempotency.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.tck.KeyStoreContract;
import dev.idempotency.tck.TckContext;
import dev.idempotency.testing.TestDatabases;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;

/**
 * The TCK against one database: a fresh table per test (named from the test, dropped after it), so
 * that nothing a previous test left running can touch this test's records; the store and each peer
 * (another application instance) have their own connection pool, shared by the tests of one class.
 */
abstract class JdbcKeyStoreContract extends KeyStoreContract {
  private static final Map<Class<?>, Fixture> FIXTURES = new ConcurrentHashMap<>();

  private record Fixture(String prefix, List<HikariDataSource> pools) {}

  private static final java.util.concurrent.atomic.AtomicInteger TABLES =
      new java.util.concurrent.atomic.AtomicInteger();
  private int peers;
  private String table;

  abstract TestDatabases db();

  /** Engine time (the TCK's controlled clock) unless a subclass proves the database clock. */
  ClockSource clockSource() {
    return ClockSource.ENGINE;
  }

  private Fixture fixture() {
    // the time rules run concurrently (KeyStoreContract.QUIET_MACHINE): one fixture per class, made
    // once
    return FIXTURES.computeIfAbsent(
        getClass(),
        c -> {
          String url = db().url();
          String prefix = "tck_" + (clockSource() == ClockSource.DATABASE ? "c" : "e") + "_";
          return new Fixture(
              prefix, List.of(db().pool(url, 12), db().pool(url, 12), db().pool(url, 12)));
        });
  }

  /** The store's settings beyond table and clock: a subclass may add one (none by default). */
  JdbcKeyStoreBuilder configure(JdbcKeyStoreBuilder builder) {
    return builder;
  }

  private JdbcKeyStore store(HikariDataSource pool, String table) {
    return configure(JdbcKeyStore.builder(pool))
        .tableName(table)
        .clockSource(clockSource())
        .build();
  }

  @Override
  protected KeyStore newStore(TckContext context) throws Exception {
    Fixture f = fixture();
    table =
        f.prefix()
            + Integer.toHexString(context.testName().hashCode())
            + "_"
            + TABLES.incrementAndGet()
            + "_"
            + AbstractJdbcKeyStoreTest.JVM;
    HikariDataSource main = f.pools().get(0);
    AbstractJdbcKeyStoreTest.dropTables(main, table);
    String t = table;
    context.onClose(() -> AbstractJdbcKeyStoreTest.dropTables(main, t));
    peers = 0;
    return configure(JdbcKeyStore.builder(main))
        .tableName(table)
        .clockSource(clockSource())
        .createSchemaIfMissing()
        .build();
  }

  @Override
  protected KeyStore newPeer(KeyStore store, TckContext context) throws Exception {
    Fixture f = fixture();
    return store(f.pools().get(1 + (peers++ % 2)), table);
  }

  @AfterAll
  static void closePools() {
    FIXTURES.values().forEach(f -> f.pools().forEach(HikariDataSource::close));
    FIXTURES.clear();
  }
}
