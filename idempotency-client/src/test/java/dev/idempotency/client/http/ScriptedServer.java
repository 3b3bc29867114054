package dev.idempotency.client.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idempotency.client.ThreadLeakGuard;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real HTTP server on 127.0.0.1 (port 0) that fails on purpose, following a script of behaviours,
 * one per request as it arrives at the wire (the last behaviour repeats). It records every request
 * it received, so tests count attempts at the wire, below every retry layer (ours and the JDK's).
 */
public final class ScriptedServer implements AutoCloseable {
  /** What the server does with one request. */
  @FunctionalInterface
  public interface Behaviour {
    void handle(HttpExchange exchange, Received request) throws Exception;
  }

  /** One request as it arrived. */
  public record Received(
      String method, String path, String idempotencyKey, byte[] body, long arrivalNanos) {
    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final HttpServer server;

  /**
   * Not daemons: one left running is a leak that {@link ThreadLeakGuard} reports for the test that
   * left it.
   */
  private final ExecutorService executor =
      Executors.newCachedThreadPool(r -> new Thread(r, "scripted-server"));

  private final Deque<Behaviour> script = new ArrayDeque<>();
  private Behaviour last = respond(200, "ok");
  private final List<Received> received = new CopyOnWriteArrayList<>();

  public ScriptedServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::dispatch);
    server.start();
  }

  /**
   * Starts a server, for a test's field initializer.
   *
   * @return the running server
   */
  public static ScriptedServer start() {
    try {
      return new ScriptedServer();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the scripted server on 127.0.0.1", e);
    }
  }

  /**
   * @return an HTTP/1.1 client (the server speaks only that) with a 5 s connect timeout
   */
  public static HttpClient http11Client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** Appends behaviours; the last one repeats once the script runs out. */
  public synchronized ScriptedServer then(Behaviour... behaviours) {
    for (Behaviour b : behaviours) {
      script.addLast(b);
      last = b;
    }
    return this;
  }

  private Behaviour next() {
    synchronized (this) {
      Behaviour b = script.pollFirst();
      return b != null ? b : last;
    }
  }

  private void dispatch(HttpExchange exchange) {
    try {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Received r =
          new Received(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getPath(),
              exchange.getRequestHeaders().getFirst("Idempotency-Key"),
              body,
              System.nanoTime());
      received.add(r);
      next().handle(exchange, r);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exchange.close();
    } catch (Exception e) {
      exchange.close();
    }
  }

  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  public List<Received> received() {
    return List.copyOf(received);
  }

  public int wireCount() {
    return received.size();
  }

  /**
   * Stops the server (closing its connections and ending its dispatcher thread), then interrupts
   * the behaviours still running and waits for them to end.
   *
   * @throws IllegalStateException if a thread of the server is still running after {@link
   *     ThreadLeakGuard#GRACE}
   */
  @Override
  public void close() {
    server.stop(0);
    ThreadLeakGuard.shutDown(executor, "scripted server");
  }

  // ---- behaviours ----

  public static Behaviour respond(int status, String body) {
    return respond(status, Map.of("Content-Type", "text/plain"), body);
  }

  public static Behaviour respond(int status, Map<String, String> headers, String body) {
    return (exchange, request) ->
        send(exchange, status, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  /** A problem+json response with {@code code}, {@code retryable} and optionally Retry-After. */
  public static Behaviour problem(int status, String code, boolean retryable, String retryAfter) {
    String json =
        "{\"type\":\"https://idempotency.dev/problems/"
            + code
            + "\",\"title\":\""
            + code
            + "\",\"status\":"
            + status
            + ",\"detail\":\"scripted\",\"code\":\""
            + code
            + "\",\"retryable\":"
            + retryable
            + "}";
    return (exchange, request) -> {
      if (retryAfter != null) {
        exchange.getResponseHeaders().set("Retry-After", retryAfter);
      }
      send(
          exchange,
          status,
          Map.of("Content-Type", "application/problem+json"),
          json.getBytes(StandardCharsets.UTF_8));
    };
  }

  /**
   * Closes the connection without a response: the request was received (and maybe processed), the
   * answer lost.
   */
  public static Behaviour dropConnection() {
    return (exchange, request) -> exchange.close();
  }

  /** Sends the status line and part of a fixed-length body, then closes the connection. */
  public static Behaviour respondThenAbort() {
    return (exchange, request) -> {
      exchange.getResponseHeaders().set("Content-Type", "text/plain");
      exchange.sendResponseHeaders(200, 100);
      OutputStream out = exchange.getResponseBody();
      out.write("partial...".getBytes(StandardCharsets.UTF_8));
      out.flush();
      exchange.close(); // the fixed-length stream is short: the server closes the connection
    };
  }

  /**
   * Sends a 200 with its headers and the first bytes of a chunked body, signals {@code
   * headersSent}, then never finishes the body: it holds the connection until the client goes away
   * or the server is closed.
   */
  public static Behaviour headersThenStall(CountDownLatch headersSent) {
    return (exchange, request) -> {
      OutputStream out = startChunkedBody(exchange);
      headersSent.countDown();
      new CountDownLatch(1).await(); // released only by the server's shutdownNow
      out.close();
    };
  }

  /**
   * Sends a 200 with its headers, then one body byte every {@code intervalMillis}, without end,
   * until the client goes away (the write fails) or the server is closed.
   */
  public static Behaviour trickle(long intervalMillis) {
    return (exchange, request) -> {
      OutputStream out = startChunkedBody(exchange);
      while (true) {
        Thread.sleep(intervalMillis);
        out.write('.');
        out.flush();
      }
    };
  }

  private static OutputStream startChunkedBody(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/plain");
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    out.write("first bytes".getBytes(StandardCharsets.UTF_8));
    out.flush();
    return out;
  }

  /**
   * Holds the request longer than any attempt timeout of the test, then answers (if still
   * connected).
   */
  public static Behaviour stall(long millis) {
    return (exchange, request) -> {
      Thread.sleep(millis);
      send(exchange, 200, Map.of(), "late".getBytes(StandardCharsets.UTF_8));
    };
  }

  static void send(HttpExchange exchange, int status, Map<String, String> headers, byte[] body)
      throws IOException {
    headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
