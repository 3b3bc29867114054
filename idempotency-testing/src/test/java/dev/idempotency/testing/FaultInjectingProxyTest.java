package dev.idempotency.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy between the JDK client and a real Jetty ({@link JettyHarness}): what each fault does at
 * the wire.
 */
class FaultInjectingProxyTest {
  private final EchoServlet servlet = new EchoServlet();
  private JettyHarness jetty;
  private FaultInjectingProxy proxy;

  @BeforeEach
  void start() throws Exception {
    // the filter shows that the harness puts the filters in front of the servlet
    Filter tagging =
        (req, res, chain) -> {
          ((HttpServletResponse) res).setHeader("X-Filtered", "yes");
          chain.doFilter(req, res);
        };
    jetty = JettyHarness.start(servlet, tagging);
    proxy = FaultInjectingProxy.start(jetty.port());
  }

  @AfterEach
  void stop() throws Exception {
    try (JettyHarness j = jetty;
        FaultInjectingProxy p = proxy) {
      // closes the proxy, then Jetty, each even if the other fails
    }
  }

  private HttpResponse<String> post(String body) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(proxy.uri("/orders?n=1"))
            .timeout(Duration.ofSeconds(30))
            .header("Idempotency-Key", "k-1")
            .header("X-Hop", "dropped")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return JettyHarness.CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void forwardRelaysTheResponseAndRecordsTheExchange() throws Exception {
    HttpResponse<String> response = post("hello");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("POST /orders?n=1 hello");
    assertThat(response.headers().firstValue("X-Filtered")).hasValue("yes");
    assertThat(servlet.requests).hasValue(1);
    ProxyExchange exchange = proxy.exchange(0);
    assertThat(proxy.exchanges()).containsExactly(exchange);
    assertThat(exchange.index()).isZero();
    assertThat(exchange.method()).isEqualTo("POST");
    assertThat(exchange.path()).isEqualTo("/orders?n=1");
    assertThat(exchange.idempotencyKeys()).containsExactly("k-1");
    assertThat(exchange.fault()).isEqualTo(Fault.FORWARD);
    assertThat(exchange.upstreamStatus()).isEqualTo(200);
    assertThat(exchange.upstreamHeader("x-filtered")).isEqualTo("yes");
    assertThat(exchange.upstreamBody()).isEqualTo("POST /orders?n=1 hello");
    assertThat(proxy.sawUpstreamStatus(200)).isTrue();
  }

  /**
   * The request's hop-by-hop headers, those its Connection header names included, stay at the
   * proxy.
   */
  @Test
  void hopByHopHeadersAreNotForwarded() throws Exception {
    byte[] request =
        ("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close, X-Hop\r\nX-Hop: dropped\r\n"
                + "Upgrade: h2c\r\nX-Kept: kept\r\nContent-Length: 2\r\n\r\nhi")
            .getBytes(StandardCharsets.US_ASCII);

    String response = rawThroughProxy(request);

    assertThat(response).startsWith("HTTP/1.1 200");
    assertThat(servlet.lastHeaders).isEqualTo("X-Hop=null Upgrade=null X-Kept=kept X-Slow=null");
  }

  @Test
  void forwardThenDropRunsTheRequestAndLosesTheResponse() throws Exception {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable lost = catchThrowable(() -> post("a"));
    HttpResponse<String> retry = post("b");

    assertThat(lost).isInstanceOf(IOException.class);
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(servlet.requests).hasValue(2);
    assertThat(proxy.exchanges())
        .extracting(ProxyExchange::upstreamStatus)
        .containsExactly(200, 200);
    assertThat(proxy.exchanges())
        .extracting(ProxyExchange::fault)
        .containsExactly(Fault.FORWARD_THEN_DROP, Fault.FORWARD);
  }

  @Test
  void resetWithoutForwardingNeverReachesTheServer() {
    proxy.plan(new ScriptedFaults(Fault.RESET_WITHOUT_FORWARDING));

    Throwable reset = catchThrowable(() -> post("a"));

    assertThat(reset).isInstanceOf(IOException.class);
    assertThat(servlet.requests).hasValue(0);
    assertThat(proxy.exchange(0).upstreamStatus()).isEqualTo(-1);
  }

  @Test
  void answersCarryTheConfiguredRetryAfterWithoutForwarding() throws Exception {
    proxy.retryAfterSeconds(7, 3).plan(new ScriptedFaults(Fault.ANSWER_503, Fault.ANSWER_429));

    HttpResponse<String> shed = post("a");
    HttpResponse<String> limited = post("b");

    assertThat(shed.statusCode()).isEqualTo(503);
    assertThat(shed.headers().firstValue("Retry-After")).hasValue("7");
    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("3");
    assertThat(servlet.requests).hasValue(0);
    assertThat(proxy.faultCounts())
        .containsEntry(Fault.ANSWER_503, 1L)
        .containsEntry(Fault.ANSWER_429, 1L)
        .containsEntry(Fault.FORWARD, 0L)
        .hasSize(Fault.values().length);
  }

  @Test
  void aTruncatedResponseEndsHalfwayThroughItsBody() {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_TRUNCATE));

    Throwable cutOff = catchThrowable(() -> post("a long enough body"));

    assertThat(cutOff).isInstanceOf(IOException.class);
    assertThat(servlet.requests).hasValue(1);
    assertThat(proxy.exchange(0).upstreamStatus()).isEqualTo(200);
  }

  /**
   * The slowed request reaches the server with the slow-request header, the client's connection
   * closes while the server still works on it (the servlet waits for the client to have failed),
   * and the response arrives later.
   */
  @Test
  void aSlowedRequestIsDroppedWhileTheServerStillProcessesIt() throws Exception {
    proxy
        .slowRequests("X-Slow", "yes", Duration.ofMillis(50))
        .plan(new ScriptedFaults(Fault.FORWARD_SLOWED_THEN_DROP));
    servlet.release = new CountDownLatch(1);

    Throwable dropped = catchThrowable(() -> post("a"));
    servlet.release.countDown();

    assertThat(dropped).isInstanceOf(IOException.class);
    assertThat(proxy.exchange(0).awaitUpstream(Duration.ofSeconds(10))).isTrue();
    assertThat(proxy.exchange(0).upstreamStatus()).isEqualTo(200);
    assertThat(servlet.lastHeaders).contains("X-Slow=yes");
  }

  @Test
  void closeEndsEveryThreadOfTheProxy() throws Exception {
    proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_STALL));
    Thread stalled = new Thread(() -> catchThrowable(() -> post("a")), "stalled-client");
    stalled.start();
    assertThat(waitFor(() -> proxy.sawUpstreamStatus(200))).isTrue();

    proxy.close();

    stalled.join(10_000);
    assertThat(stalled.isAlive()).isFalse();
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("fault-injecting-proxy"));
  }

  @Test
  void theHarnessSendsRawBytes() throws Exception {
    String response =
        jetty.raw(
            ("GET /raw HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));

    assertThat(response)
        .startsWith("HTTP/1.1 200")
        .contains("X-Filtered: yes")
        .endsWith("GET /raw ");
  }

  private String rawThroughProxy(byte[] request) throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", proxy.uri("").getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request);
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static boolean waitFor(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Answers {@code <method> <target> <body>}, remembers the headers the proxy may drop or add. */
  static final class EchoServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    final transient AtomicInteger requests = new AtomicInteger();
    transient volatile String lastHeaders;

    /** When set, a request waits for it before answering. */
    transient volatile CountDownLatch release;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      requests.incrementAndGet();
      lastHeaders =
          "X-Hop="
              + req.getHeader("X-Hop")
              + " Upgrade="
              + req.getHeader("Upgrade")
              + " X-Kept="
              + req.getHeader("X-Kept")
              + " X-Slow="
              + req.getHeader("X-Slow");
      CountDownLatch gate = release;
      if (gate != null) {
        try {
          gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      String query = req.getQueryString() == null ? "" : "?" + req.getQueryString();
      byte[] body =
          (req.getMethod()
                  + " "
                  + req.getRequestURI()
                  + query
                  + " "
                  + new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
              .getBytes(StandardCharsets.UTF_8);
      resp.setContentLength(body.length);
      resp.getOutputStream().write(body);
    }
  }
}
