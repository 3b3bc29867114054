package dev.idempotency.examples;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/1.1 proxy on loopback that breaks the network on purpose, between the demo's clients and its API:
 *
 * <ul>
 *   <li><b>drop after processing</b>: forwards the request, lets the API process it (the charge happens), then
 *       closes the client's connection without a response: the case idempotency keys exist for;
 *   <li><b>slow, then dropped</b>: forwards the request with a header that makes the API slow, and closes the
 *       client's connection while the API is still processing: the client's retry finds the key in flight;
 *   <li><b>reset</b>: answers a request with a TCP reset, before (not processed) or after (processed) forwarding;
 *   <li><b>bursts</b>: for a few requests in a row answers {@code 503} or {@code 429} with {@code Retry-After}
 *       itself, as an overloaded gateway would.
 * </ul>
 *
 * <p>Every request that reaches the proxy counts as one attempt "at the wire", so hidden retries of the HTTP
 * client itself would show up in the counts. Decisions come from a seeded random source (one per connection, so
 * runs are repeatable in distribution). It reads requests with a {@code Content-Length} body, which is what the
 * JDK client sends; it is a test fixture, not a general proxy.
 */
final class FaultInjectingProxy implements AutoCloseable {
  /** What the proxy did with one request. */
  enum Fault {
    NONE, DROP_AFTER_PROCESSING, DROP_DURING_PROCESSING, RESET_BEFORE_PROCESSING, RESET_AFTER_PROCESSING,
    BURST_503, BURST_429
  }

  /** The chance of each fault per request, and how long a burst lasts. */
  record Rates(double dropAfter, double slow, double reset, double burst, int burstLength) {
    Rates {
      for (double r : new double[] {dropAfter, slow, reset, burst}) {
        if (r < 0 || r > 1) {
          throw new IllegalArgumentException("fault rates must be between 0 and 1, but one was " + r);
        }
      }
      if (dropAfter + slow + reset + burst > 1) {
        throw new IllegalArgumentException("fault rates must add up to at most 1, but add up to "
            + (dropAfter + slow + reset + burst));
      }
    }
  }

  /** The header that makes the demo's API slow, and how slow; the client gives up on the connection sooner. */
  static final String DELAY_HEADER = "X-Demo-Delay-Millis";
  static final int SLOW_MILLIS = 800;
  static final int SLOW_DROP_AFTER_MILLIS = 150;

  private static final Set<String> NOT_FORWARDED =
      Set.of("host", "connection", "content-length", "expect", "upgrade", "keep-alive", "transfer-encoding");

  private final ServerSocket server;
  private final URI backend;
  private final Rates rates;
  private final long seed;
  private final HttpClient forwarder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-proxy");
    t.setDaemon(true);
    return t;
  });
  private final AtomicInteger connectionIds = new AtomicInteger();
  private final AtomicLong attempts = new AtomicLong();
  private final Map<Fault, AtomicLong> faults = new LinkedHashMap<>();
  private final Object burstLock = new Object();
  private int burstLeft;
  private Fault burstKind = Fault.BURST_503;

  FaultInjectingProxy(URI backend, Rates rates, long seed) throws IOException {
    this.backend = backend;
    this.rates = rates;
    this.seed = seed;
    for (Fault f : Fault.values()) {
      faults.put(f, new AtomicLong());
    }
    server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    connections.execute(this::acceptLoop);
  }

  /** The address clients call instead of the API's. */
  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** Requests that reached the proxy: every attempt of every client, at the wire. */
  long attempts() {
    return attempts.get();
  }

  /** How many requests got each fault. */
  Map<Fault, Long> faultCounts() {
    Map<Fault, Long> counts = new LinkedHashMap<>();
    faults.forEach((k, v) -> counts.put(k, v.get()));
    return counts;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        SplittableRandom random = new SplittableRandom(seed * 1_000_003 + connectionIds.incrementAndGet());
        connections.execute(() -> serve(socket, random));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket, SplittableRandom random) {
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      while (true) {
        Request request = Request.read(in);
        if (request == null) {
          return;
        }
        attempts.incrementAndGet();
        Fault fault = decide(random);
        faults.get(fault).incrementAndGet();
        switch (fault) {
          case RESET_BEFORE_PROCESSING -> {
            reset(socket);
            return;
          }
          case BURST_503 -> write(out, 503, "Service Unavailable",
              Map.of("Retry-After", List.of("1"), "Content-Type", List.of("text/plain")), bytes("overloaded"));
          case BURST_429 -> write(out, 429, "Too Many Requests",
              Map.of("Retry-After", List.of("1"), "Content-Type", List.of("text/plain")), bytes("slow down"));
          case DROP_DURING_PROCESSING -> {
            forwarder.sendAsync(forwardRequest(request, true), HttpResponse.BodyHandlers.discarding());
            Thread.sleep(SLOW_DROP_AFTER_MILLIS);
            return; // still processing, and the client's connection is gone
          }
          default -> {
            HttpResponse<byte[]> response = forwarder.send(forwardRequest(request, false),
                HttpResponse.BodyHandlers.ofByteArray());
            if (fault == Fault.DROP_AFTER_PROCESSING) {
              return; // processed, and the response is lost: close without a byte
            }
            if (fault == Fault.RESET_AFTER_PROCESSING) {
              reset(socket);
              return;
            }
            write(out, response.statusCode(), "", response.headers().map(), response.body());
          }
        }
      }
    } catch (IOException | InterruptedException e) {
      // the client went away, or the proxy is closing: nothing to report
    }
  }

  private Fault decide(SplittableRandom random) {
    synchronized (burstLock) {
      if (burstLeft > 0) {
        burstLeft--;
        return burstKind;
      }
    }
    double r = random.nextDouble();
    if (r < rates.dropAfter()) {
      return Fault.DROP_AFTER_PROCESSING;
    }
    r -= rates.dropAfter();
    if (r < rates.slow()) {
      return Fault.DROP_DURING_PROCESSING;
    }
    r -= rates.slow();
    if (r < rates.reset()) {
      return random.nextBoolean() ? Fault.RESET_BEFORE_PROCESSING : Fault.RESET_AFTER_PROCESSING;
    }
    r -= rates.reset();
    if (r < rates.burst()) {
      synchronized (burstLock) {
        burstKind = random.nextBoolean() ? Fault.BURST_503 : Fault.BURST_429;
        burstLeft = Math.max(0, rates.burstLength() - 1);
        return burstKind;
      }
    }
    return Fault.NONE;
  }

  private HttpRequest forwardRequest(Request request, boolean slow) {
    HttpRequest.Builder b = HttpRequest.newBuilder(backend.resolve(request.target))
        .timeout(Duration.ofSeconds(30))
        .method(request.method, request.body.length == 0
            ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(request.body));
    request.headers.forEach((name, values) -> {
      if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(v -> b.header(name, v));
      }
    });
    if (slow) {
      b.header(DELAY_HEADER, String.valueOf(SLOW_MILLIS));
    }
    return b.build();
  }

  private static void reset(Socket socket) throws IOException {
    socket.setSoLinger(true, 0); // close with RST instead of FIN
    socket.close();
  }

  private static void write(OutputStream out, int status, String reason, Map<String, List<String>> headers,
      byte[] body) throws IOException {
    // the reason phrase may be empty (RFC 9112 4); the status code is what clients read
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
    headers.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (!NOT_FORWARDED.contains(lower) && !lower.startsWith(":")) {
        values.forEach(v -> head.append(name).append(": ").append(v).append("\r\n"));
      }
    });
    head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    server.close();
    connections.shutdownNow();
  }

  /** One parsed HTTP/1.1 request with a Content-Length body. */
  private record Request(String method, String target, Map<String, List<String>> headers, byte[] body) {
    /** Reads the next request, or returns null at the end of the connection. */
    static Request read(InputStream in) throws IOException {
      String requestLine = line(in);
      if (requestLine == null || requestLine.isEmpty()) {
        return null;
      }
      String[] parts = requestLine.split(" ");
      if (parts.length != 3) {
        throw new IOException("malformed request line: " + requestLine);
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      int length = 0;
      for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
        int colon = line.indexOf(':');
        String name = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        if (name.equalsIgnoreCase("Content-Length")) {
          length = Integer.parseInt(value);
        }
      }
      byte[] body = in.readNBytes(length);
      if (body.length != length) {
        return null;
      }
      return new Request(parts[0], parts[1], headers, body);
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) != -1) {
        if (c == '\n') {
          String s = buf.toString(StandardCharsets.ISO_8859_1);
          return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
        }
        buf.write(c);
      }
      return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
