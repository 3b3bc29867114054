package dev.idempotency.examples.crash;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.JettyHarness;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * One application instance serving {@code POST /orders} through the servlet filter with an endpoint
 * rule in one transaction ({@code EndpointRule.inOneTransaction()}), as a child JVM that {@link
 * AbstractOneTransactionCrashTest} kills with {@code kill -9} or freezes with {@code kill -STOP}.
 * The handler writes an {@code ordered} row to the ledger on the transaction the filter hands it,
 * which holds the request's claim; with the crash point {@code before-commit} it then prints {@code
 * READY before-commit} and blocks, the transaction open and uncommitted, until it is killed.
 *
 * <p>Arguments: {@code <records table> <ledger table> <before-commit|none>}; the database comes
 * from the environment as for {@link CrashWorker}. Lines on stdout: {@code PORT <port>} once Jetty
 * listens, then {@code READY serving}; {@code INSERTED <key>} after each handler's insert. The
 * worker serves until it is killed or released ({@code CRASH_RELEASE_FILE}), then halts with 0.
 */
public final class OneTransactionHttpWorker {
  /** Where the handler stops for the kill, its transaction open. */
  static final String BEFORE_COMMIT = "before-commit";

  /** The scope of every request: the worker has no authentication in front of the filter. */
  static final String SCOPE = "crash-tests";

  private OneTransactionHttpWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3 || !(args[2].equals(BEFORE_COMMIT) || args[2].equals("none"))) {
      System.err.println(
          "usage: OneTransactionHttpWorker <records table> <ledger table> <before-commit|none>");
      System.exit(64);
    }
    String recordsTable = args[0];
    String ledgerTable = args[1];
    boolean stopBeforeCommit = args[2].equals(BEFORE_COMMIT);
    CrashWorker.haltWithTheTestJvm();
    try (HikariDataSource pool = CrashWorker.poolFromEnvironment(4)) {
      // 1 s: a duplicate that waits on a frozen owner's lock answers in flight after it
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool)
              .tableName(recordsTable)
              .statementTimeout(Duration.ofSeconds(1))
              .build();
      IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
      IdempotencyHttp http =
          IdempotencyHttp.builder(engine)
              .endpoint(
                  EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST").inOneTransaction())
              .anonymousScope(Scope.of(SCOPE))
              .build();
      JettyHarness jetty =
          JettyHarness.start(
              new Orders(ledgerTable, stopBeforeCommit), new IdempotencyFilter(http));
      CrashWorker.say("PORT " + jetty.port());
      CrashWorker.stopHere("serving");
      jetty.close();
      engine.close();
    }
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  /**
   * The application: one ledger row per order on the request's transaction, and a response with an
   * order id of its own per run, so that a replay carrying another run's bytes would show.
   */
  private static final class Orders extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final String ledgerTable;
    private final boolean stopBeforeCommit;

    Orders(String ledgerTable, boolean stopBeforeCommit) {
      this.ledgerTable = ledgerTable;
      this.stopBeforeCommit = stopBeforeCommit;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp)
        throws ServletException, IOException {
      Connection tx = (Connection) req.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE);
      String key = req.getHeader("Idempotency-Key");
      long pid = ProcessHandle.current().pid();
      try {
        CrashWorker.insertLedgerRow(tx, ledgerTable, key, "ordered", pid);
        CrashWorker.say("INSERTED " + key);
        if (stopBeforeCommit) {
          CrashWorker.stopHere(BEFORE_COMMIT);
        }
      } catch (SQLException e) {
        throw new ServletException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServletException(e);
      }
      resp.setStatus(201);
      resp.setContentType("application/json");
      resp.getOutputStream()
          .write(
              ("{\"order\":\""
                      + key
                      + "\",\"id\":\""
                      + UUID.randomUUID()
                      + "\",\"worker\":"
                      + pid
                      + "}")
                  .getBytes(StandardCharsets.UTF_8));
    }
  }
}
