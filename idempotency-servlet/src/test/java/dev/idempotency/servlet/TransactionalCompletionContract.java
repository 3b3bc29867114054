package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A completion the application commits with its business writes ({@code completeWith} of the JDBC
 * store), over the filter in Jetty: the first caller gets what a replay returns (or, through the
 * handler's rules, the response whose stored form a replay returns), and a response committed
 * through the handler obeys its rules.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class TransactionalCompletionContract {
  private static final String BODY = "{\"item\":1}";
  private IdempotencyEngine engine;
  private FilteredTestApp server;

  private HikariDataSource pool;

  /** The database; its tables servlet_tx_records and servlet_orders are replaced. */
  protected abstract TestDatabases database();

  private DataSource dataSource() {
    if (pool == null) {
      pool = database().pool(database().url(), 8);
    }
    return pool;
  }

  private FilteredTestApp start(UnaryOperator<IdempotencyHttpBuilder> settings) throws Exception {
    DataSource ds = dataSource();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS servlet_orders");
      st.execute("CREATE TABLE servlet_orders (n INT NOT NULL)");
      st.execute("DROP TABLE IF EXISTS servlet_tx_records");
    }
    JdbcKeyStore jdbc =
        JdbcKeyStore.builder(ds).tableName("servlet_tx_records").createSchemaIfMissing().build();
    engine = IdempotencyEngine.builder(jdbc).build();
    // the application commits the completion itself, between the claim and the filter's completion:
    // the stepped lifecycle, chosen by name (the JDBC store would run the rule in one transaction)
    IdempotencyHttpBuilder http =
        IdempotencyHttp.builder(engine)
            .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH").stepped());
    server = new FilteredTestApp(settings.apply(http).build());
    return server;
  }

  private int orders() throws Exception {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM servlet_orders")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (pool != null) {
      pool.close();
    }
  }

  /**
   * Committed through the request's execution ({@code execution.completeWith}): the stored response
   * has only the allowlisted headers (no Set-Cookie, no private header); the first caller gets the
   * response the work returned, whole, not the live one the servlet also wrote.
   */
  @Test
  void commitThroughTheHandlerStoresOnlyWhatItsRulesAllow() throws Exception {
    FilteredTestApp s = start(h -> h);
    HttpResponse<byte[]> first = s.post("/order", "tx-2", BODY);
    HttpResponse<byte[]> replay = s.post("/order", "tx-2", BODY);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(ContractOverHttpTest.text(first)).isEqualTo("committed #1");
    assertThat(first.headers().firstValue("Set-Cookie")).hasValue("session=c1");
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(replay.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    assertThat(replay.headers().firstValue("Set-Cookie"))
        .as("Set-Cookie must not be stored")
        .isEmpty();
    assertThat(replay.headers().firstValue("X-Internal"))
        .as("a header outside the allowlist")
        .isEmpty();
    assertThat(orders()).isEqualTo(1);
  }

  /**
   * Over the storable limit through the handler: the marker is committed with the order, the caller
   * gets it all.
   */
  @Test
  void oversizedCommitThroughTheHandlerStoresTheMarker() throws Exception {
    FilteredTestApp s = start(h -> h.maxStoredResponseBytes(1024));
    HttpResponse<byte[]> first = s.post("/order?size=2000", "tx-3", BODY);
    HttpResponse<byte[]> replay = s.post("/order?size=2000", "tx-3", BODY);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).hasSize(2000);
    assertThat(replay.statusCode()).as(ContractOverHttpTest.text(replay)).isEqualTo(500);
    assertThat(ContractOverHttpTest.member(replay, "code"))
        .isEqualTo("idempotency_response_not_stored");
    assertThat(ContractOverHttpTest.member(replay, "retryable")).isEqualTo("false");
    assertThat(orders()).as("the order is committed once").isEqualTo(1);
  }
}
