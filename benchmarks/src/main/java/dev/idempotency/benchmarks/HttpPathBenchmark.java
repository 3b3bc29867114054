package dev.idempotency.benchmarks;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Requests per second over real HTTP (the JDK client against Jetty 12 on loopback, 4 client
 * threads): a POST with a fresh key and a replayed POST through the idempotency filter (in-memory
 * store), against the same servlet without the filter ({@code baselineFresh} and {@code
 * baselineReplay} post to an unguarded path of the same server).
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar HttpPathBenchmark
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(4)
public class HttpPathBenchmark {
  private static final String BODY =
      "{\"paymentId\":\"pay-1\",\"amountCents\":4200,\"currency\":\"EUR\"}";

  private Server server;
  private IdempotencyEngine engine;
  private HttpClient client;
  private URI guarded;
  private URI unguarded;
  private final AtomicLong keys = new AtomicLong();
  private final String prefix = "k-" + System.nanoTime() + "-";

  @Setup(Level.Trial)
  public void start() throws Exception {
    engine = IdempotencyEngine.builder(new InMemoryKeyStore()).build();
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    ServletContextHandler context = new ServletContextHandler();
    Filter login =
        (req, res, chain) ->
            chain.doFilter(
                new HttpServletRequestWrapper((HttpServletRequest) req) {
                  @Override
                  public Principal getUserPrincipal() {
                    return () -> "merchant-1";
                  }
                },
                res);
    context.addFilter(new FilterHolder(login), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addFilter(
        new FilterHolder(new IdempotencyFilter(http)),
        "/guarded/*",
        EnumSet.of(DispatcherType.REQUEST));
    ServletHolder payments = new ServletHolder(new PaymentServlet());
    context.addServlet(payments, "/guarded/payments");
    context.addServlet(payments, "/plain/payments");
    server = new Server(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    server.setHandler(context);
    server.start();
    String base =
        "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    guarded = URI.create(base + "/guarded/payments");
    unguarded = URI.create(base + "/plain/payments");
    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    post(guarded, "replayed-key");
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    server.stop();
    engine.close();
  }

  private int post(URI uri, String key) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(BODY));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Benchmark
  public int fresh() throws Exception {
    return post(guarded, prefix + keys.incrementAndGet());
  }

  @Benchmark
  public int replay() throws Exception {
    return post(guarded, "replayed-key");
  }

  @Benchmark
  public int baselineFresh() throws Exception {
    return post(unguarded, prefix + keys.incrementAndGet());
  }

  @Benchmark
  public int baselineReplay() throws Exception {
    return post(unguarded, "replayed-key");
  }

  /** A payment endpoint whose own work is negligible, so the figures show what the filter costs. */
  static final class PaymentServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      request.getInputStream().readAllBytes();
      response.setStatus(201);
      response.setContentType("application/json");
      response.getWriter().write("{\"paymentId\":\"pay-1\",\"status\":\"succeeded\"}");
    }
  }
}
