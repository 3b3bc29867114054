package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link IdempotencyFilter#transactionAware}: code written against a {@code DataSource} writes, on
 * a request in one transaction (the handler's default rule on the JDBC store), on the connection
 * that holds the request's key, over the filter in Jetty on H2.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionAwareDataSourceTest {
  private final String suffix =
      Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  private final String orders = "view_orders_" + suffix;
  private HikariDataSource pool;
  private IdempotencyEngine engine;
  private FilteredTestApp server;

  /** What the application does with the view, per request; it may throw. */
  private interface Work {
    void run(DataSource view, HttpServletRequest request) throws Exception;
  }

  private final AtomicReference<Work> work = new AtomicReference<>();
  private final AtomicInteger runs = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    pool = TestDatabases.H2.pool(TestDatabases.H2.url(), 8);
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + orders + " (n INT NOT NULL)");
    }
    JdbcKeyStore store =
        JdbcKeyStore.builder(pool).tableName("view_rec_" + suffix).createSchemaIfMissing().build();
    engine = IdempotencyEngine.builder(store).build();
    DataSource view = IdempotencyFilter.transactionAware(pool);
    HttpServlet app =
        new HttpServlet() {
          @Override
          protected void doPost(HttpServletRequest req, HttpServletResponse res)
              throws IOException {
            runs.incrementAndGet();
            try {
              work.get().run(view, req);
            } catch (IOException | RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            res.setStatus(201);
            res.getWriter().write("{\"run\":" + runs.get() + "}");
          }
        };
    server =
        new FilteredTestApp(
            app,
            (req, res, chain) -> chain.doFilter(req, res),
            IdempotencyHttp.builder(engine).build());
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    engine.close();
    pool.close();
  }

  private void insert(DataSource view, int n) throws SQLException {
    try (Connection c = view.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO " + orders + " (n) VALUES (?)")) {
      ps.setInt(1, n);
      ps.executeUpdate();
    }
  }

  private int rows() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + orders)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * The view's write was made, then the application threw: it rolls back with the key, so the retry
   * runs as a first attempt and the table holds one row. Code that took a connection of its own
   * from the pool would have committed the first row.
   */
  @Test
  void aWriteThroughTheViewRollsBackWithTheKeyWhenTheApplicationThrows() throws Exception {
    work.set(
        (view, req) -> {
          insert(view, runs.get());
          if (runs.get() == 1) {
            throw new IllegalStateException("the application failed after its write");
          }
        });

    HttpResponse<byte[]> failed = server.post("/orders", "view-1", "{}");
    int rowsAfterTheFailure = rows();
    HttpResponse<byte[]> retry = server.post("/orders", "view-1", "{}");
    HttpResponse<byte[]> replay = server.post("/orders", "view-1", "{}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(rowsAfterTheFailure).as("rows after the failed attempt").isZero();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(new String(replay.body())).isEqualTo("{\"run\":2}");
    assertThat(runs).as("runs: the failure, the retry; the replay ran nothing").hasValue(2);
    assertThat(rows()).isEqualTo(1);
  }

  /**
   * Inside the request the view hands out the connection that holds the key: the application can
   * neither commit nor roll it back, and closing it ends only its own use.
   */
  @Test
  void theViewsConnectionIsTheRequestsAndCannotEndItsTransaction() throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    work.set(
        (view, req) -> {
          Connection c = view.getConnection();
          Connection request =
              (Connection) req.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE);
          assertThat(c.toString()).contains(request.toString());
          assertThat(c.getAutoCommit()).isFalse();
          assertThatThrownBy(c::commit)
              .isInstanceOf(SQLException.class)
              .hasMessageContaining("one transaction");
          assertThatThrownBy(c::rollback).isInstanceOf(SQLException.class);
          assertThatThrownBy(() -> c.setAutoCommit(true)).isInstanceOf(SQLException.class);
          c.close();
          assertThat(c.isClosed()).isTrue();
          assertThat(request.isClosed()).as("the request's own connection").isFalse();
          assertThatThrownBy(c::createStatement).isInstanceOf(SQLException.class);
          insert(view, 7);
          seen.set("checked");
        });

    HttpResponse<byte[]> response = server.post("/orders", "view-2", "{}");

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(seen).hasValue("checked");
    assertThat(rows()).isEqualTo(1);
  }

  /** Outside a request in one transaction, the view is the pool. */
  @Test
  void outsideARequestTheViewIsThePool() throws Exception {
    DataSource view = IdempotencyFilter.transactionAware(pool);
    try (Connection c = view.getConnection()) {
      assertThat(c.getAutoCommit()).isTrue();
      assertThat(c.toString()).as("a connection of the pool").startsWith("HikariProxyConnection");
    }
    insert(view, 1);
    assertThat(rows()).as("committed on its own").isEqualTo(1);
  }
}
