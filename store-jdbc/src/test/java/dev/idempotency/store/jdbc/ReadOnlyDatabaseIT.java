package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store pointed at a database that refuses writes, as a standby of a replicated database does for
 * every session: a claim fails at once with a {@link KeyStoreException} that says so and names the
 * fix, not a {@link StoreUnavailableException} a caller would retry forever, and nothing is
 * written. The read-only session is set per connection ({@code default_transaction_read_only} on
 * PostgreSQL, {@code SET SESSION TRANSACTION READ ONLY} on MariaDB): a standby answers with the
 * same error, which is the part tested here; a promoted standby is not.
 */
class ReadOnlyDatabaseIT {
  private static final Fingerprint FP = Fingerprint.of("request".getBytes(StandardCharsets.UTF_8));
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  static Stream<Arguments> databases() {
    return Stream.of(
        Arguments.of(
            TestDatabases.POSTGRES,
            "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
            "IDEMPOTENCY_TEST_PG_USER",
            "IDEMPOTENCY_TEST_PG_PASSWORD"),
        Arguments.of(
            TestDatabases.MARIADB_CONNECTOR_J,
            "SET SESSION TRANSACTION READ ONLY",
            "IDEMPOTENCY_TEST_MYSQL_USER",
            "IDEMPOTENCY_TEST_MYSQL_PASSWORD"));
  }

  @ParameterizedTest
  @MethodSource("databases")
  @Timeout(60)
  void aClaimOnAReadOnlyDatabaseFailsSayingSoAndWritesNothing(
      TestDatabases db, String readOnly, String userVar, String passwordVar) throws Exception {
    String table = "idem_ro_" + AbstractJdbcKeyStoreTest.JVM;
    try (HikariDataSource admin = db.pool(db.url(), 2);
        HikariDataSource readOnlyPool = readOnlyPool(db, readOnly, userVar, passwordVar)) {
      AbstractJdbcKeyStoreTest.dropTables(admin, table);
      try {
        JdbcKeyStore writable =
            JdbcKeyStore.builder(admin).tableName(table).createSchemaIfMissing().build();
        JdbcKeyStore store = JdbcKeyStore.builder(readOnlyPool).tableName(table).build();
        RecordId id = RecordId.of("acct", "ro-1");

        assertThatThrownBy(
                () ->
                    store.claim(
                        new ClaimRequest(
                            id, FP, T0, Duration.ofSeconds(30), Duration.ofMinutes(1))))
            .isExactlyInstanceOf(KeyStoreException.class)
            .hasMessageContaining("refuses writes")
            .hasMessageContaining("targetServerType=primary");
        assertThat(writable.lookup(id)).as("nothing was written").isEmpty();
      } finally {
        AbstractJdbcKeyStoreTest.dropTables(admin, table);
      }
    }
  }

  private static HikariDataSource readOnlyPool(
      TestDatabases db, String readOnly, String userVar, String passwordVar) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    List<String> cred = TestDatabases.require(userVar, passwordVar);
    config.setUsername(cred.get(0));
    config.setPassword(cred.get(1));
    config.setMaximumPoolSize(2);
    config.setConnectionInitSql(readOnly);
    config.setPoolName("test-read-only-" + db);
    return new HikariDataSource(config);
  }
}
