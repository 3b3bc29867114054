package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The check that keeps a Galera node's claims off {@code RETURNING} ({@link
 * MySqlDialect#galeraNode}) answers no on a MariaDB server without a Galera provider, through both
 * drivers, so that such a server keeps its one-round-trip claim. {@code GaleraClusterIT} covers a
 * Galera node, where a {@code RETURNING} claim ran keys twice.
 */
@Timeout(30)
class MySqlGaleraCheckIT {
  @ParameterizedTest
  @EnumSource(
      value = TestDatabases.class,
      names = {"MARIADB_CONNECTOR_J", "MARIADB_DRIVER"})
  void aServerWithoutGaleraIsNoGaleraNode(TestDatabases db) throws Exception {
    try (HikariDataSource pool = db.pool(db.url(), 1);
        Connection c = pool.getConnection()) {
      assertThat(MySqlDialect.galeraNode(c)).isFalse();
      assertThat(MySqlDialect.returnsRows(c.getMetaData().getDatabaseProductVersion())).isTrue();
    }
  }
}
