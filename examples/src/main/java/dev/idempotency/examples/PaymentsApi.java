package dev.idempotency.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The demo's payments API: {@code POST /payments} charges a card through the (non-idempotent) card
 * network and answers {@code 201} with the payment. With the library on, the {@link
 * IdempotencyFilter} stands in front of it, backed by the JDBC store (embedded H2 unless a JDBC URL
 * is given) or, with {@code --store dynamodb}, the DynamoDB store; with it off, nothing does.
 */
final class PaymentsApi implements AutoCloseable {
  /**
   * The header that makes the API slow, in milliseconds: the fault injector's way to keep a request
   * in flight while it drops the client's connection.
   */
  static final String DELAY_HEADER = "X-Demo-Delay-Millis";

  private final Server server;

  /** What the store holds open: the JDBC pool, or the DynamoDB store and its client. */
  private final AutoCloseable storage;

  private final IdempotencyEngine engine;
  final CardNetwork cardNetwork = new CardNetwork();

  private PaymentsApi(DemoOptions options, boolean withFilter, int port, String database)
      throws Exception {
    KeyStore store;
    if (options.store() == DemoOptions.Store.DYNAMODB) {
      DemoDynamoDb dynamo = DemoDynamoDb.open(options.dynamoDbEndpoint(), "demo-" + database);
      storage = dynamo;
      store = dynamo.store();
    } else {
      HikariConfig pool = new HikariConfig();
      pool.setJdbcUrl(options.jdbcUrl().orElse("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1"));
      pool.setUsername(options.jdbcUser());
      pool.setPassword(options.jdbcPassword());
      pool.setMaximumPoolSize(16);
      pool.setPoolName("payments-" + database);
      HikariDataSource dataSource = new HikariDataSource(pool);
      storage = dataSource;
      store =
          JdbcKeyStore.builder(dataSource)
              .tableName("demo_" + database + "_keys")
              .createSchemaIfMissing()
              .build();
    }
    engine = IdempotencyEngine.builder(store).build();

    ServletContextHandler context = new ServletContextHandler();
    context.addFilter(
        new FilterHolder(new BearerAuthFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    if (withFilter) {
      // the servlet charges the card network, a call outside the database that no rollback takes
      // back: the stepped lifecycle, chosen by name (on the JDBC store a rule that chose none runs
      // in one transaction)
      IdempotencyHttp http =
          IdempotencyHttp.builder(engine)
              .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/**", "POST", "PATCH").stepped())
              .build();
      context.addFilter(
          new FilterHolder(new IdempotencyFilter(http)), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    context.addServlet(new ServletHolder(new PaymentServlet(cardNetwork)), "/payments");
    server = new Server(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    server.setHandler(context);
    server.start();
  }

  /** Starts the API on {@code port} (0: any free port), on loopback. */
  static PaymentsApi start(DemoOptions options, boolean withFilter, int port, String database)
      throws Exception {
    return new PaymentsApi(options, withFilter, port, database);
  }

  URI uri() {
    return URI.create(
        "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("stopping the payments API failed", e);
    } finally {
      closeStore();
    }
  }

  private void closeStore() {
    engine.close();
    try {
      storage.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the store failed", e);
    }
  }

  /**
   * Stands in for real authentication: the bearer token names the merchant, and becomes the
   * request's principal, from which the idempotency filter takes the key's scope.
   */
  static final class BearerAuthFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest request = (HttpServletRequest) req;
      String auth = request.getHeader("Authorization");
      if (auth == null || !auth.startsWith("Bearer ") || auth.length() == 7) {
        ((HttpServletResponse) res).sendError(401, "send Authorization: Bearer <merchant>");
        return;
      }
      String merchant = auth.substring(7).strip();
      chain.doFilter(
          new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
              return () -> merchant;
            }

            @Override
            public String getRemoteUser() {
              return merchant;
            }
          },
          res);
    }
  }

  /**
   * POST /payments: charges the card once per call. Not idempotent by itself; the filter makes it
   * so.
   */
  static final class PaymentServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Pattern PAYMENT_ID =
        Pattern.compile("\"paymentId\"\\s*:\\s*\"([^\"]{1,100})\"");
    private static final Pattern AMOUNT = Pattern.compile("\"amountCents\"\\s*:\\s*(-?\\d{1,12})");
    private static final Pattern DELAY = Pattern.compile("\"delayMillis\"\\s*:\\s*(\\d{1,5})");

    private final transient CardNetwork cardNetwork;

    PaymentServlet(CardNetwork cardNetwork) {
      this.cardNetwork = cardNetwork;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Matcher id = PAYMENT_ID.matcher(body);
      Matcher amount = AMOUNT.matcher(body);
      if (!id.find() || !amount.find() || Long.parseLong(amount.group(1)) <= 0) {
        response.setStatus(422);
        response.setContentType("application/problem+json");
        response
            .getWriter()
            .write(
                "{\"type\":\"about:blank\",\"title\":\"Invalid payment\",\"status\":422,"
                    + "\"detail\":\"send {\\\"paymentId\\\": \\\"…\\\", \\\"amountCents\\\": a positive number}\"}");
        return;
      }
      // a slow card network, to show the in-flight conflict: from the body (curl) or the fault
      // injector's header
      Matcher delay = DELAY.matcher(body);
      String delayHeader = request.getHeader(DELAY_HEADER);
      long delayMillis =
          delay.find()
              ? Long.parseLong(delay.group(1))
              : delayHeader != null ? Long.parseLong(delayHeader) : 0;
      if (delayMillis > 0) {
        try {
          Thread.sleep(Math.min(delayMillis, 60_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      String authorization = cardNetwork.charge(id.group(1), Long.parseLong(amount.group(1)));
      response.setStatus(201);
      response.setContentType("application/json");
      response.setHeader("Location", "/payments/" + id.group(1));
      response
          .getWriter()
          .write(
              "{\"paymentId\":\""
                  + id.group(1)
                  + "\",\"amountCents\":"
                  + amount.group(1)
                  + ",\"status\":\"succeeded\",\"authorization\":\""
                  + authorization
                  + "\"}");
    }
  }
}
