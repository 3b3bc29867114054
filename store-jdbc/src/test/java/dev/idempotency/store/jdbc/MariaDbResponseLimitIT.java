package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What one record keeps on MariaDB, through both drivers: a statement is one packet of at most
 * {@code max_allowed_packet}, and the drivers send a binary value escaped (the MariaDB driver: a
 * zero byte or a quote as two bytes) or as hex (Connector/J: every byte as two). The store declares
 * half the packet less 64 KiB, keeps a response of that size whatever its bytes, and refuses one
 * byte more before sending anything.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class MariaDbResponseLimitIT {
  private static final Fingerprint FP = Fingerprint.of("p".getBytes(StandardCharsets.UTF_8));
  private static final Map<String, List<String>> HEADERS =
      Map.of("Content-Type", List.of("application/octet-stream"));

  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<String> tables = new ArrayList<>();

  @AfterAll
  void tearDown() throws SQLException {
    try {
      for (int i = 0; i < pools.size(); i++) {
        AbstractJdbcKeyStoreTest.dropTables(pools.get(i), tables.get(i));
      }
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }

  private HikariDataSource pool(TestDatabases db) {
    HikariDataSource pool = db.pool(db.url(), 2);
    pools.add(pool);
    tables.add("response_limit_" + db.name().toLowerCase());
    return pool;
  }

  private JdbcKeyStore storeOver(javax.sql.DataSource ds, TestDatabases db) {
    return JdbcKeyStore.builder(ds)
        .tableName("response_limit_" + db.name().toLowerCase())
        .createSchemaIfMissing()
        .build();
  }

  private static long maxAllowedPacket(javax.sql.DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** A response of {@code size} bytes as {@link StoredResponse#size()} counts them. */
  private static StoredResponse responseOfSize(long size, byte fill) {
    long headerBytes = StoredResponse.of(200, HEADERS, new byte[0]).size();
    byte[] body = new byte[Math.toIntExact(size - headerBytes)];
    Arrays.fill(body, fill);
    return StoredResponse.of(200, HEADERS, body);
  }

  private static ClaimOutcome.Claimed claim(JdbcKeyStore store, RecordId id) {
    return (ClaimOutcome.Claimed)
        store.claim(
            new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1)));
  }

  /**
   * The declared limit is half the server's packet less 64 KiB, and a response of exactly that size
   * is stored and replayed byte for byte: of zero bytes (which the MariaDB driver escapes to two
   * bytes each), of quotes (the same), and of bytes above 0x7F (sent as they are by the MariaDB
   * driver, as hex by Connector/J).
   */
  @ParameterizedTest
  @EnumSource(names = {"MARIADB_CONNECTOR_J", "MARIADB_DRIVER"})
  void aResponseOfTheDeclaredLimitIsStoredWhateverItsBytes(TestDatabases db) throws SQLException {
    HikariDataSource pool = pool(db);
    JdbcKeyStore store = storeOver(pool, db);
    long packet = maxAllowedPacket(pool);
    assertThat(store.maxResponseBytes())
        .as("maxResponseBytes() with max_allowed_packet = %d", packet)
        .isEqualTo((packet - 64 * 1024) / 2);
    for (byte fill : new byte[] {0, '\'', (byte) 0xA5}) {
      RecordId id = RecordId.of("acct", "at-limit-" + fill + "-" + System.nanoTime());
      ClaimOutcome.Claimed c = claim(store, id);
      StoredResponse atLimit = responseOfSize(store.maxResponseBytes(), fill);
      store.complete(id, c.fence(), atLimit, Instant.now());
      ClaimOutcome replay =
          store.claim(
              new ClaimRequest(id, FP, Instant.now(), Duration.ofSeconds(30), Duration.ofHours(1)));
      assertThat(replay)
          .as("the claim after completing with %d bytes of 0x%02x", atLimit.size(), fill)
          .isInstanceOfSatisfying(
              ClaimOutcome.Completed.class,
              done -> {
                assertThat(done.response().body()).isEqualTo(atLimit.body());
                assertThat(done.response().headers()).isEqualTo(atLimit.headers());
              });
    }
  }

  /**
   * One byte over the declared limit: {@code complete} throws {@link KeyStoreException} naming the
   * limit, sends no statement at all, and the record stays in flight under its owner's fence.
   */
  @ParameterizedTest
  @EnumSource(names = {"MARIADB_CONNECTOR_J", "MARIADB_DRIVER"})
  void aResponseOneByteOverTheLimitIsRefusedBeforeAnythingIsSent(TestDatabases db)
      throws SQLException {
    HikariDataSource pool = pool(db);
    CountingDataSource counting = new CountingDataSource(pool);
    JdbcKeyStore store = storeOver(counting, db);
    long limit = store.maxResponseBytes();
    assertThat(limit).as("maxResponseBytes()").isEqualTo((maxAllowedPacket(pool) - 64 * 1024) / 2);
    RecordId id = RecordId.of("acct", "over-" + System.nanoTime());
    ClaimOutcome.Claimed c = claim(store, id);
    StoredResponse over = responseOfSize(limit + 1, (byte) 0);
    counting.reset();
    assertThatThrownBy(() -> store.complete(id, c.fence(), over, Instant.now()))
        .isExactlyInstanceOf(KeyStoreException.class)
        .hasMessageContaining("maxResponseBytes() = " + limit + " bytes")
        .hasMessageContaining("max_allowed_packet");
    assertThat(counting.roundTrips()).as("statements sent for the refused completion").isZero();
    RecordSnapshot after = store.lookup(id).orElseThrow();
    assertThat(after.state()).isEqualTo(KeyState.IN_FLIGHT);
    assertThat(after.fence()).isEqualTo(c.fence());
  }

  /** A lower limit of the application's own is declared; one above the server's fails the build. */
  @ParameterizedTest
  @EnumSource(names = {"MARIADB_DRIVER"})
  void theBuilderTakesALowerLimitAndRefusesAHigherOne(TestDatabases db) throws SQLException {
    HikariDataSource pool = pool(db);
    long serverLimit = storeOver(pool, db).maxResponseBytes();
    JdbcKeyStore lower =
        JdbcKeyStore.builder(pool)
            .tableName("response_limit_" + db.name().toLowerCase())
            .maxResponseBytes(4096)
            .build();
    assertThat(lower.maxResponseBytes()).isEqualTo(4096);
    assertThatThrownBy(
            () ->
                JdbcKeyStore.builder(pool)
                    .tableName("response_limit_" + db.name().toLowerCase())
                    .maxResponseBytes(serverLimit + 1)
                    .build())
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("maxResponseBytes(" + (serverLimit + 1) + ")")
        .hasMessageContaining("at most " + serverLimit)
        .hasMessageContaining("max_allowed_packet");
  }
}
