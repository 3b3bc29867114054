package dev.idempotency.testing;

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
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server half as a user deploys it, for the client tests: a real Jetty 12 ({@link
 * JettyHarness}), with a login filter that sets the principal (the idempotency filter's default
 * scope), then the filter under test (the real {@code IdempotencyFilter}, which this module cannot
 * depend on), then {@link ConfirmServlet}, whose every execution is one counted side effect.
 */
public final class CountingConfirmApp implements AutoCloseable {
  /** The application: counts its side effects. */
  public final ConfirmServlet app = new ConfirmServlet();

  /** Every request that reached Jetty's filter chain (so, not those a proxy answered itself). */
  public final AtomicInteger requests = new AtomicInteger();

  private final JettyHarness jetty;

  private CountingConfirmApp(Filter idempotencyFilter) throws Exception {
    jetty = JettyHarness.start(app, new LoginFilter(requests), idempotencyFilter);
  }

  /**
   * Starts Jetty with the login filter, then {@code idempotencyFilter}, then the counting servlet.
   *
   * @param idempotencyFilter the filter under test
   * @return the running application
   * @throws Exception if Jetty does not start
   */
  public static CountingConfirmApp start(Filter idempotencyFilter) throws Exception {
    return new CountingConfirmApp(idempotencyFilter);
  }

  /**
   * The port Jetty listens on, on 127.0.0.1.
   *
   * @return the port
   */
  public int port() {
    return jetty.port();
  }

  @Override
  public void close() {
    ConfirmServlet.open(app.gate); // never leave a request thread blocked
    jetty.close();
  }

  /**
   * {@code POST /orders/{id}/confirm}: counts one side effect, optionally blocks on {@link #gate}
   * (to hold the key in flight), and answers 201 with JSON, a Location and the confirmation number.
   */
  public static final class ConfirmServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient AtomicInteger effects = new AtomicInteger();

    /** When set, each execution blocks on it after counting its side effect. */
    public transient volatile CountDownLatch gate;

    /** Counted down when an execution has started. */
    public final transient CountDownLatch entered = new CountDownLatch(1);

    /**
     * How many times the side effect ran.
     *
     * @return the count
     */
    public int effects() {
      return effects.get();
    }

    static void open(CountDownLatch gate) {
      if (gate != null) {
        gate.countDown();
      }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp)
        throws ServletException, IOException {
      String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int n = effects.incrementAndGet();
      entered.countDown();
      CountDownLatch g = gate;
      if (g != null) {
        try {
          if (!g.await(30, TimeUnit.SECONDS)) {
            throw new ServletException("test gate never opened");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ServletException(e);
        }
      }
      resp.setStatus(201);
      resp.setContentType("application/json");
      resp.setHeader("Location", req.getRequestURI() + "/confirmations/" + n);
      resp.getOutputStream()
          .write(
              ("{\"confirmation\":"
                      + n
                      + ",\"user\":\""
                      + req.getUserPrincipal().getName()
                      + "\",\"request\":"
                      + body
                      + "}")
                  .getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Authenticates {@code Authorization: Bearer <user>}: a stand-in for the application's real
   * authentication.
   */
  static final class LoginFilter implements Filter {
    private final AtomicInteger requests;

    LoginFilter(AtomicInteger requests) {
      this.requests = requests;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
        throws IOException, ServletException {
      requests.incrementAndGet();
      HttpServletRequest request = (HttpServletRequest) req;
      String authorization = request.getHeader("Authorization");
      if (authorization == null || !authorization.startsWith("Bearer ")) {
        chain.doFilter(
            req, res); // no principal: the idempotency filter refuses guarded requests with 401
        return;
      }
      Principal principal = () -> authorization.substring("Bearer ".length());
      chain.doFilter(
          new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
              return principal;
            }
          },
          res);
    }
  }
}
