package dev.idempotency.benchmarks;

import dev.idempotency.store.jdbc.Dialect;

/**
 * The stores the benchmarks compare, chosen with {@code -p store=…}. Each creates its store and its
 * baseline over the same storage (for a database: the same connection pool).
 */
public enum StoreType {
  /** {@code InMemoryKeyStore} vs a bare {@code ConcurrentHashMap}. */
  IN_MEMORY {
    @Override
    Fixture open() {
      return new InMemoryFixture();
    }
  },
  /** {@code JdbcKeyStore} on embedded, in-memory H2 vs plain INSERT + UPDATE on the same pool. */
  H2 {
    @Override
    Fixture open() throws Exception {
      return new JdbcFixture(Dialect.H2, "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "sa", "");
    }
  },
  /**
   * {@code JdbcKeyStore} on the PostgreSQL test server vs INSERT … ON CONFLICT DO NOTHING + UPDATE.
   */
  POSTGRESQL {
    @Override
    Fixture open() throws Exception {
      return JdbcFixture.fromEnvironment(
          Dialect.POSTGRESQL,
          "IDEMPOTENCY_TEST_PG_URL",
          "IDEMPOTENCY_TEST_PG_USER",
          "IDEMPOTENCY_TEST_PG_PASSWORD");
    }
  },
  /**
   * The same on the durable PostgreSQL that {@code benchmarks/durable.sh} starts (every commit
   * flushed to disk), as users run it. Not in the default list of {@code
   * AbstractStoreBenchmark.store}: run it with {@code -p store=POSTGRESQL_DURABLE} and the {@code
   * IDEMPOTENCY_DURABLE_PG_*} variables set.
   */
  POSTGRESQL_DURABLE {
    @Override
    Fixture open() throws Exception {
      return JdbcFixture.fromEnvironment(
          Dialect.POSTGRESQL,
          "IDEMPOTENCY_DURABLE_PG_URL",
          "IDEMPOTENCY_DURABLE_PG_USER",
          "IDEMPOTENCY_DURABLE_PG_PASSWORD");
    }
  },
  /** {@code JdbcKeyStore} on the MariaDB test server (MariaDB driver) vs INSERT IGNORE + UPDATE. */
  MARIADB {
    @Override
    Fixture open() throws Exception {
      return JdbcFixture.fromEnvironment(
          Dialect.MYSQL,
          "IDEMPOTENCY_TEST_MARIADB_URL",
          "IDEMPOTENCY_TEST_MYSQL_USER",
          "IDEMPOTENCY_TEST_MYSQL_PASSWORD");
    }
  },
  /**
   * {@code RedisKeyStore} on the Redis test server vs a bare {@code SET NX PX} + {@code SET XX}.
   */
  REDIS {
    @Override
    Fixture open() {
      return RedisFixture.fromEnvironment();
    }
  },
  /**
   * The same, every write of both waiting for a replica of the test server ({@code WAIT 1 1000}),
   * which the fixture starts: what {@code waitForReplicas} costs.
   */
  REDIS_WAIT {
    @Override
    Fixture open() throws Exception {
      return RedisFixture.withReplica();
    }
  },
  /**
   * {@code DynamoDbKeyStore} on the dynalite test server vs a conditional PutItem + UpdateItem on
   * the same client. Not in the default list of {@code AbstractStoreBenchmark.store}: run it with
   * {@code -p store=DYNAMODB} (dynalite measures the store's overhead, not DynamoDB's latency).
   */
  DYNAMODB {
    @Override
    Fixture open() {
      return new DynamoDbFixture();
    }
  };

  abstract Fixture open() throws Exception;
}
