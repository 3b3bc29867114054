package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.core.FingerprintBuilder;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotentCall;
import dev.idempotency.core.ResultCodec;
import dev.idempotency.core.Work;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code IdempotentCall.run} with {@code Work.inOneTransaction} on H2: the work's row and the
 * stored result commit together or not at all, through one transaction ({@code ONE_TRANSACTION})
 * and through a claim and a transactional completion (a store that declares only {@code
 * TRANSACTIONAL}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentCallInTransactionTest {
  private static final Fingerprint EVENT =
      FingerprintBuilder.forPurpose("invoice/1").add("order-1").add(4200).build();
  private static final AtomicInteger KEYS = new AtomicInteger();

  private HikariDataSource pool;
  private JdbcKeyStore store;

  @BeforeAll
  void setUp() throws SQLException {
    pool = TestDatabases.H2.pool(TestDatabases.H2.url(), 4);
    AbstractJdbcKeyStoreTest.exec(pool, "CREATE TABLE invoices (record_key VARCHAR(200) NOT NULL)");
    store = JdbcKeyStore.builder(pool).createSchemaIfMissing().build();
  }

  @AfterAll
  void tearDown() {
    pool.close();
  }

  Stream<TransactionalKeyStore<Connection>> stores() {
    return Stream.of(store, new TwoCommitsOnly(store));
  }

  @ParameterizedTest
  @MethodSource("stores")
  void theWorkRunsOnceAndItsRowCommitsWithTheResult(TransactionalKeyStore<Connection> under)
      throws SQLException {
    RecordId id = RecordId.of("acct-1", "evt-" + KEYS.incrementAndGet());
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(under).build()) {
      IdempotentCall<String> call = IdempotentCall.of(engine, ResultCodec.utf8());
      TransactionalWork<Connection, String> work =
          tx -> {
            insertInvoice(tx, id);
            return "invoice-" + runs.incrementAndGet();
          };
      assertThat(call.run(id, EVENT, Work.inOneTransaction(Connection.class, work)))
          .isEqualTo("invoice-1");
      assertThat(call.run(id, EVENT, Work.inOneTransaction(Connection.class, work)))
          .isEqualTo("invoice-1");
    }
    assertThat(runs).hasValue(1);
    assertThat(invoicesOf(id)).isEqualTo(1);
  }

  @ParameterizedTest
  @MethodSource("stores")
  void aThrowingWorkLeavesNeitherItsRowNorTheKey(TransactionalKeyStore<Connection> under)
      throws SQLException {
    RecordId id = RecordId.of("acct-1", "evt-" + KEYS.incrementAndGet());
    IllegalStateException failure = new IllegalStateException("credit limit");
    try (IdempotencyEngine engine = IdempotencyEngine.builder(under).build()) {
      IdempotentCall<String> call = IdempotentCall.of(engine, ResultCodec.utf8());
      assertThatThrownBy(
              () ->
                  call.run(
                      id,
                      EVENT,
                      Work.inOneTransaction(
                          Connection.class,
                          (Connection tx) -> {
                            insertInvoice(tx, id);
                            throw failure;
                          })))
          .isSameAs(failure);
    }
    assertThat(invoicesOf(id)).as("the work's row rolled back").isZero();
    assertThat(store.lookup(id)).as("the key is absent, so a retry runs anew").isEmpty();
  }

  private static void insertInvoice(Connection tx, RecordId id) throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO invoices VALUES (?)")) {
      ps.setString(1, id.key().value());
      ps.executeUpdate();
    }
  }

  private int invoicesOf(RecordId id) throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM invoices WHERE record_key = ?")) {
      ps.setString(1, id.key().value());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** The JDBC store without {@code ONE_TRANSACTION}: a claim, then a transactional completion. */
  private static final class TwoCommitsOnly extends DelegatingStore
      implements TransactionalKeyStore<Connection> {
    private final JdbcKeyStore jdbc;

    TwoCommitsOnly(JdbcKeyStore jdbc) {
      super(jdbc);
      this.jdbc = jdbc;
    }

    @Override
    public Set<StoreCapability> capabilities() {
      EnumSet<StoreCapability> caps = EnumSet.copyOf(jdbc.capabilities());
      caps.remove(StoreCapability.ONE_TRANSACTION);
      return caps;
    }

    @Override
    public Class<Connection> transactionType() {
      return jdbc.transactionType();
    }

    @Override
    public <R> R inPhase(
        RecordId id,
        FenceToken fence,
        RecoveryPoint next,
        Instant now,
        Duration lease,
        TransactionalWork<Connection, R> work)
        throws Exception {
      return jdbc.inPhase(id, fence, next, now, lease, work);
    }

    @Override
    public StoredResponse completeWith(
        RecordId id,
        FenceToken fence,
        Instant now,
        TransactionalWork<Connection, StoredResponse> work)
        throws Exception {
      return jdbc.completeWith(id, fence, now, work);
    }

    @Override
    public String toString() {
      return "JdbcKeyStore without ONE_TRANSACTION";
    }
  }
}
