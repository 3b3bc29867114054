package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection a phase's work receives on the dialects that set a statement timeout (PostgreSQL
 * here; the pool's connection underneath is H2's, which the view does not look at).
 */
class TimeoutConnectionTest {
  private static final int TIMEOUT_SECONDS = 7;

  private Connection pooled;
  private Connection view;

  @BeforeEach
  void open() throws SQLException {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:timeout-connection");
    pooled = ds.getConnection();
    view =
        SqlDialect.of("POSTGRESQL", Names.of("timeout_connection"), false, TIMEOUT_SECONDS, false)
            .withStatementTimeout(pooled);
  }

  @AfterEach
  void close() throws SQLException {
    pooled.close();
  }

  @Test
  void equalsOnlyItselfAndHashesByIdentity() {
    assertThat(view.equals(view)).as("the view equals itself").isTrue();
    assertThat(view.equals(pooled)).as("the view equals the pool's connection").isFalse();
    assertThat(pooled.equals(view)).as("the pool's connection equals the view").isFalse();
    assertThat(view.hashCode()).isEqualTo(System.identityHashCode(view));
    Set<Connection> seen = new HashSet<>(Set.of(view));
    assertThat(seen).as("a set holding the view").contains(view).doesNotContain(pooled);
  }

  @Test
  void reachesTheDriversInterfaceThroughUnwrapNotACast() throws SQLException {
    assertThat(view)
        .as("the view is a cast target for Connection only")
        .isNotInstanceOf(JdbcConnection.class);
    assertThat(view.isWrapperFor(JdbcConnection.class)).isTrue();
    assertThat(view.unwrap(JdbcConnection.class)).isSameAs(pooled.unwrap(JdbcConnection.class));
  }

  @Test
  void everyStatementItCreatesHasTheStoresTimeout() throws SQLException {
    try (Statement s = view.createStatement();
        PreparedStatement ps = view.prepareStatement("SELECT 1")) {
      assertThat(s.getQueryTimeout()).as("createStatement").isEqualTo(TIMEOUT_SECONDS);
      assertThat(ps.getQueryTimeout()).as("prepareStatement").isEqualTo(TIMEOUT_SECONDS);
    }
  }
}
