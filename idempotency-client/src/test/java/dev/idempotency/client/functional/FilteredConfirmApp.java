package dev.idempotency.client.functional;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.JettyHarness;
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
 * The server half as a user deploys it: a real Jetty 12 ({@link JettyHarness}), with a login filter
 * that sets the principal (the filter's default scope), then the real {@link IdempotencyFilter}
 * configured with {@code IdempotencyHttp.builder(engine).build()}, then {@link ConfirmServlet},
 * whose every execution is one counted side effect.
 */
final class FilteredConfirmApp implements AutoCloseable {
  final ConfirmServlet app = new ConfirmServlet();

  /** Every request that reached Jetty's filter chain (so, not those the proxy answered itself). */
  final AtomicInteger requests = new AtomicInteger();

  private final JettyHarness jetty;

  FilteredConfirmApp(IdempotencyEngine engine) throws Exception {
    jetty =
        JettyHarness.start(
            app,
            new LoginFilter(requests),
            new IdempotencyFilter(IdempotencyHttp.builder(engine).build()));
  }

  int port() {
    return jetty.port();
  }

  @Override
  public void close() throws Exception {
    ConfirmServlet.open(app.gate); // never leave a request thread blocked
    jetty.close();
  }

  /**
   * {@code POST /orders/{id}/confirm}: counts one side effect, optionally blocks on {@link #gate}
   * (to hold the key in flight), and answers 201 with JSON, a Location and the confirmation number.
   */
  static final class ConfirmServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient AtomicInteger effects = new AtomicInteger();

    /** When set, each execution blocks on it after counting its side effect. */
    transient volatile CountDownLatch gate;

    /** Counted down when an execution has started. */
    final transient CountDownLatch entered = new CountDownLatch(1);

    /**
     * @return how many times the side effect ran
     */
    int effects() {
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
