package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.grpc.GrpcTestCalls.RawAnswer;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The binding over Netty with the JDBC store on the PostgreSQL test server ({@code
 * IDEMPOTENCY_TEST_PG_*}: skipped locally, failed in CI, when unset): the concurrency gate, and a
 * replay read back from the database (the stored status and metadata go through the store's own
 * encoding, not the in-memory store's objects), and a store whose table is gone. A table of its own
 * per test, dropped afterwards.
 */
class PostgresGrpcIT {
  private final String table =
      "grpc_it_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
  private HikariDataSource pool;

  @BeforeEach
  void openPool() {
    pool = TestDatabases.POSTGRES.pool(TestDatabases.POSTGRES.url(), 16);
  }

  @AfterEach
  void dropTable() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("DROP SEQUENCE IF EXISTS " + table + "_fence_seq");
    } finally {
      pool.close();
    }
  }

  private GrpcFixture fixture(UnaryOperator<IdempotencyServerInterceptor.Builder> config)
      throws Exception {
    JdbcKeyStore store =
        JdbcKeyStore.builder(pool).tableName(table).createSchemaIfMissing().build();
    return new GrpcFixture(store, GrpcConcurrencyGateTest.N, e -> e, config);
  }

  private static final ChargeRequest CHARGE =
      ChargeRequest.newBuilder().setOrderId("pg-2").setAmountCents(4200).build();

  @Test
  void thirtyTwoCallsWithOneKeyRunTheHandlerOnceOnPostgres() throws Exception {
    try (GrpcFixture f = fixture(c -> c)) {
      GrpcConcurrencyGate.Result r =
          GrpcConcurrencyGate.race(f, GrpcConcurrencyGateTest.N, "k-race-pg");

      assertThat(r.runs()).isEqualTo(1);
      assertThat(r.ok()).isEqualTo(1);
      assertThat(r.inFlight()).isEqualTo(GrpcConcurrencyGateTest.N - 1);
      assertThat(r.others()).isEmpty();
    }
  }

  @Test
  void aStoredAnswerIsReplayedFromPostgresWithItsBytesStatusAndStoredMetadata() throws Exception {
    try (GrpcFixture f = fixture(b -> b.storedMetadata("x-charge-region", "x-served-by"))) {
      byte[] request =
          ChargeRequest.newBuilder()
              .setOrderId("pg-1")
              .setAmountCents(4200)
              .putLabels("channel", "web")
              .build()
              .toByteArray();
      RawAnswer first = GrpcTestCalls.rawCharge(f.channel, callerAndKey("acct-1", "k-pg"), request);
      RawAnswer retry = GrpcTestCalls.rawCharge(f.channel, callerAndKey("acct-1", "k-pg"), request);

      assertThat(f.payments.runs("pg-1")).as("handler runs for one key").isEqualTo(1);
      assertThat(retry.message()).isEqualTo(first.message());
      assertThat(ChargeReply.parseFrom(retry.message()).getRun()).isEqualTo(1);
      assertThat(retry.trailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isEqualTo("true");
      // the stored header and trailer came back through the JDBC store's header encoding
      assertThat(retry.headers().get(GrpcServers.SERVED_BY_HEADER)).isEqualTo("node-1");
      assertThat(retry.trailers().get(GrpcServers.REGION_TRAILER)).isEqualTo("eu-1");
    }
  }

  @Test
  void aClaimOnATableThatIsGoneIsInternalStoreErrorAndTheHandlerDoesNotRun() throws Exception {
    try (GrpcFixture f = fixture(c -> c)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE " + table); // a misconfiguration: the store's table is not there
      }
      GrpcTestCalls.Refused r =
          GrpcTestCalls.assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k-no-table")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_ERROR);

      assertThat(r.status().getDescription()).doesNotContain(table);
      assertThat(f.payments.totalRuns()).isZero();
    }
  }
}
