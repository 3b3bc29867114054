package dev.idempotency.servlet;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application under the filter: every request that reaches it counts as one side effect of its
 * path. Paths pick behaviours: {@code /payments/*} (201 + JSON + Location + Set-Cookie + a private
 * header), {@code /error} (sendError 402), {@code /throw} (throws), {@code /async} (startAsync),
 * {@code /big?size=N} (N bytes), {@code /form} (echoes form parameter a), {@code /writer} (UTF-8
 * text through getWriter), {@code /redirect} ({@code sendRedirect(String)}), {@code
 * /writer-charset} ({@code setCharacterEncoding(Charset)} then getWriter), {@code /json-writer} and
 * {@code /problem-writer} (JSON through getWriter, no charset set), {@code /error-escapes}
 * (sendError with U+2028/2029 and a lone surrogate), {@code /two-phase} (two steps through the
 * filter's {@link Execution}), {@code /order} (an order row and the completion committed in one
 * transaction through the filter's {@link Execution}; {@code ?size=N} pads the committed body to N
 * bytes).
 */
final class TestApp extends HttpServlet {
  private static final long serialVersionUID = 1L;

  /** Side effects per path: the count that must stay at one per key. */
  final transient ConcurrentHashMap<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  /** The charges {@code /two-phase} made, and the downstream keys its attempts used. */
  final transient AtomicInteger charges = new AtomicInteger();

  final transient java.util.List<String> chargeKeys =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * When set, {@code /payments/*} blocks on it after counting its effect (to hold a key in flight).
   */
  transient volatile CountDownLatch gate;

  /** Counted down each time a request entered the servlet. */
  transient volatile CountDownLatch entered = new CountDownLatch(0);

  int effects(String path) {
    AtomicInteger n = effects.get(path);
    return n == null ? 0 : n.get();
  }

  int totalEffects() {
    return effects.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp)
      throws ServletException, IOException {
    String path = req.getRequestURI();
    int n =
        effects
            .computeIfAbsent(req.getMethod() + " " + path, k -> new AtomicInteger())
            .incrementAndGet();
    entered.countDown();
    String user = req.getUserPrincipal() == null ? "-" : req.getUserPrincipal().getName();
    if (path.startsWith("/payments/")) {
      byte[] body = req.getInputStream().readAllBytes();
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
      resp.setHeader("Location", path + "/" + n);
      resp.addCookie(new Cookie("session", "s-" + user + "-" + n));
      resp.setHeader("X-Internal", "secret-" + n);
      resp.setHeader("ETag", "\"v" + n + "\"");
      resp.getOutputStream()
          .write(
              ("{\"payment\":"
                      + n
                      + ",\"user\":\""
                      + user
                      + "\",\"bytes\":"
                      + body.length
                      + ",\"hash\":"
                      + Arrays.hashCode(body)
                      + "}")
                  .getBytes(StandardCharsets.UTF_8));
      return;
    }
    switch (path) {
      case "/two-phase":
        twoPhase(req, resp);
        return;
      case "/order":
        order(req, resp, n);
        return;
      case "/error":
        resp.getWriter().write("partial output that sendError discards");
        resp.sendError(402, "card \"4242\" declined #" + n);
        return;
      case "/throw":
        resp.getWriter().write("partial");
        throw new ServletException("application failure #" + n);
      case "/async":
        AsyncContext ctx = req.startAsync();
        ctx.complete();
        return;
      case "/big":
        int size = Integer.parseInt(req.getParameter("size"));
        byte[] big = new byte[size];
        Arrays.fill(big, (byte) ('a' + n % 26));
        resp.setContentType("application/octet-stream");
        resp.getOutputStream().write(big);
        return;
      case "/form":
        resp.setContentType("text/plain");
        resp.getWriter()
            .write("a=" + req.getParameter("a") + " b=" + req.getParameter("b") + " #" + n);
        return;
      case "/redirect":
        resp.getWriter().write("output that the redirect discards");
        resp.sendRedirect("/elsewhere");
        return;
      case "/writer-charset":
        resp.setContentType("text/plain");
        resp.setCharacterEncoding(StandardCharsets.UTF_8);
        resp.getWriter().write("héllo € #" + n);
        return;
      case "/json-writer":
        resp.setContentType("application/json");
        resp.getWriter().write("{\"name\":\"héllo € 日本 \uD83D\uDE00\",\"n\":" + n + "}");
        return;
      case "/problem-writer":
        resp.setContentType("application/vnd.test+json");
        resp.getWriter().write("{\"sign\":\"€\",\"n\":" + n + "}");
        return;
      case "/error-escapes":
        resp.sendError(400, "line\u2028sep\u2029 lone \uD800 #" + n);
        return;
      case "/writer":
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().write("grüße #" + n);
        return;
      default:
        resp.setContentType("text/plain");
        resp.getWriter().write(req.getMethod() + " " + path + " #" + n);
    }
  }

  /**
   * A request of two steps through the filter's {@link Execution}: the charge (counted in {@link
   * #charges}, under a downstream key that must be the same on every attempt) and its recovery
   * point, then the response. With {@code X-Test-Crash} the first step's attempt fails after the
   * checkpoint, leaving the request in flight at {@code charged}; the attempt that takes it over
   * resumes there and does not charge again.
   */
  private void twoPhase(HttpServletRequest req, HttpServletResponse resp)
      throws ServletException, IOException {
    Execution execution = (Execution) req.getAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE);
    String chargeKey = execution.downstreamKey("charge").value();
    chargeKeys.add(chargeKey);
    if (execution.resumeFrom().isEmpty()) {
      charges.incrementAndGet(); // the call out, which the provider deduplicates by chargeKey
      execution.checkpoint(RecoveryPoint.of("charged"));
      if (req.getHeader("X-Test-Crash") != null) {
        throw new ServletException("failed after the charge");
      }
    }
    resp.setStatus(201);
    resp.setContentType("text/plain");
    resp.getWriter()
        .write(
            "charges="
                + charges.get()
                + " resumedFrom="
                + execution.resumeFrom().map(RecoveryPoint::name).orElse("-")
                + " takeover="
                + execution.isTakeover());
  }

  /**
   * Writes a live response, then commits an order row and a different completion (with Set-Cookie
   * and a private header) in one transaction: through the store directly, or through the handler's
   * rules.
   */
  private void order(HttpServletRequest req, HttpServletResponse resp, int n)
      throws ServletException, IOException {
    Execution execution = (Execution) req.getAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE);
    resp.setStatus(200);
    resp.setContentType("text/plain");
    resp.getWriter().write("live #" + n);
    String size = req.getParameter("size");
    String text = "committed #" + n;
    byte[] body =
        (size == null ? text : text + " ".repeat(Integer.parseInt(size) - text.length()))
            .getBytes(StandardCharsets.UTF_8);
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("text/plain"));
    headers.put("Set-Cookie", List.of("session=c" + n));
    headers.put("X-Internal", List.of("secret-" + n));
    StoredResponse committed = StoredResponse.of(201, headers, body);
    TransactionalWork<Connection, StoredResponse> work =
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement("INSERT INTO servlet_orders (n) VALUES (?)")) {
            insert.setInt(1, n);
            insert.executeUpdate();
          }
          return committed;
        };
    try {
      execution.completeWith(Connection.class, work);
    } catch (Exception e) {
      throw new ServletException(e);
    }
  }

  /**
   * Authenticates from {@code X-Test-User}: a stand-in for the application's real authentication.
   */
  static final class TestAuthFilter implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
        throws IOException, ServletException {
      HttpServletRequest request = (HttpServletRequest) req;
      String user = request.getHeader("X-Test-User");
      if (user == null) {
        chain.doFilter(req, res);
        return;
      }
      Principal principal = () -> user;
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
