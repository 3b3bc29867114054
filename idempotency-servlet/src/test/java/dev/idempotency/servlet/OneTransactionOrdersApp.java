package dev.idempotency.servlet;

import dev.idempotency.RecordId;
import dev.idempotency.spi.KeyStore;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The application of the one-transaction tests: every request inserts one order row on the
 * transaction the filter hands it ({@link IdempotencyFilter#TRANSACTION_ATTRIBUTE}), then looks,
 * from a connection of its own, at what another instance sees of the order and of the key's record
 * while that transaction is open, and answers 201 with both in its JSON body (plus a Set-Cookie and
 * a private header that must not be stored). {@code ?size=N} pads the body to N bytes, {@code
 * ?status=S} answers S instead of 201; {@link #failNextRun} makes the next run throw after its
 * insert; {@link #hold}, when set, holds the run after its insert, its transaction open.
 */
final class OneTransactionOrdersApp extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** The runs of the application: the count that must stay at one per key. */
  final transient AtomicInteger runs = new AtomicInteger();

  /** Whether the next run throws after its insert. */
  final transient AtomicBoolean failNextRun = new AtomicBoolean();

  /** Counted down when a run has inserted its order, its transaction open. */
  transient volatile CountDownLatch inserted = new CountDownLatch(0);

  /** When set, a run waits for it after its insert (at most 30 s), its transaction open. */
  transient volatile CountDownLatch hold;

  private final transient String ordersTable;
  private final transient DataSource outside;
  private final transient KeyStore outsideStore;

  /**
   * @param ordersTable the orders table, {@code (order_key VARCHAR, run INT)}
   * @param outside a pool of its own: what another application instance sees
   * @param outsideStore the records table through that pool
   */
  OneTransactionOrdersApp(String ordersTable, DataSource outside, KeyStore outsideStore) {
    this.ordersTable = ordersTable;
    this.outside = outside;
    this.outsideStore = outsideStore;
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp)
      throws ServletException, IOException {
    int n = runs.incrementAndGet();
    Connection tx = (Connection) req.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE);
    if (tx == null || req.getAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE) != null) {
      throw new ServletException(
          "expected the transaction and no execution, got "
              + tx
              + " and "
              + req.getAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE));
    }
    String key = req.getHeader("Idempotency-Key");
    byte[] requestBody = req.getInputStream().readAllBytes();
    int ordersOutside;
    boolean recordOutside;
    try {
      try (PreparedStatement insert =
          tx.prepareStatement("INSERT INTO " + ordersTable + " (order_key, run) VALUES (?, ?)")) {
        insert.setString(1, key);
        insert.setInt(2, n);
        insert.executeUpdate();
      }
      inserted.countDown();
      awaitHold();
      if (failNextRun.getAndSet(false)) {
        throw new ServletException("application failure after the insert of run #" + n);
      }
      ordersOutside = orders(outside, ordersTable, key);
      recordOutside =
          outsideStore.lookup(RecordId.of(req.getUserPrincipal().getName(), key)).isPresent();
    } catch (SQLException e) {
      throw new ServletException(e);
    }
    String status = req.getParameter("status");
    resp.setStatus(status == null ? 201 : Integer.parseInt(status));
    resp.setContentType("application/json");
    resp.setHeader("Location", "/orders/" + key);
    resp.addCookie(new Cookie("session", "s-" + n));
    resp.setHeader("X-Internal", "secret-" + n);
    String json =
        "{\"run\":"
            + n
            + ",\"requestBytes\":"
            + requestBody.length
            + ",\"ordersSeenOutside\":"
            + ordersOutside
            + ",\"recordSeenOutside\":"
            + recordOutside
            + "}";
    String size = req.getParameter("size");
    if (size != null) {
      json = json + " ".repeat(Integer.parseInt(size) - json.length());
    }
    resp.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
  }

  private void awaitHold() throws ServletException {
    CountDownLatch h = hold;
    if (h == null) {
      return;
    }
    try {
      if (!h.await(30, TimeUnit.SECONDS)) {
        throw new ServletException("the test never released the held run");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServletException(e);
    }
  }

  /** The committed orders of {@code key}, as a connection of {@code ds} sees them. */
  static int orders(DataSource ds, String ordersTable, String key) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + ordersTable + " WHERE order_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Creates the orders table. */
  static void createOrders(DataSource ds, String ordersTable) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE " + ordersTable + " (order_key VARCHAR(255) NOT NULL, run INT NOT NULL)");
    }
  }
}
