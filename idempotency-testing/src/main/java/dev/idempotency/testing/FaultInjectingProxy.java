package dev.idempotency.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * A loopback HTTP/1.1 proxy in front of a real server that breaks the network on purpose: each
 * request gets a {@link Fault} from the proxy's {@link FaultPlan} (until one is set, every request
 * is forwarded). The faults that lose a response act after the server's whole response has arrived,
 * so behind the idempotency filter the result is stored and only the answer is lost.
 *
 * <p>One request per client connection: the proxy reads one request (with a {@code Content-Length}
 * body, which is what the JDK client sends), forwards it over a fresh connection with {@code
 * Connection: close} and without the request's hop-by-hop headers, relays the server's response
 * byte for byte, and closes the client's connection after its fault. Every request is recorded
 * ({@link #exchanges()}), so a test counts the attempts at the wire, below every retry layer, the
 * HTTP client's own included. It is a test fixture, not a general proxy.
 *
 * <p>{@link #close()} closes every socket, the client's side and the server's, and waits for every
 * thread of the proxy to end; it fails if one does not. The threads are not daemons, so one left
 * running is a leak that a thread-leak check reports for the test that left it.
 */
public final class FaultInjectingProxy implements AutoCloseable {
  /** How long the proxy's threads may take to end once {@link #close()} closed their sockets. */
  private static final Duration GRACE = Duration.ofSeconds(5);

  private static final System.Logger LOG = System.getLogger(FaultInjectingProxy.class.getName());

  private final int upstreamPort;
  private final ServerSocket listener;
  private final ThreadPools.Joinable threads = ThreadPools.newCachedPool("fault-injecting-proxy");
  private final ExecutorService executor = threads.executor();
  private final List<ProxyExchange> exchanges = new CopyOnWriteArrayList<>();

  /** Every socket the proxy holds, both sides, so that close() can unblock every read. */
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();

  private volatile FaultPlan plan = () -> Fault.FORWARD;
  private volatile long retryAfter503Seconds = 2;
  private volatile long retryAfter429Seconds = 1;

  /** The header line {@link Fault#FORWARD_SLOWED_THEN_DROP} adds, or null for none. */
  private volatile String slowHeaderLine;

  private volatile Duration slowDropAfter = Duration.ofMillis(150);
  private volatile boolean closed;

  private FaultInjectingProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    executor.execute(this::acceptLoop);
  }

  /**
   * Starts a proxy on a loopback port in front of the server on {@code upstreamPort} of 127.0.0.1.
   *
   * @param upstreamPort the server's port
   * @return the running proxy, forwarding every request until {@link #plan} says otherwise
   * @throws IOException if no port could be bound
   */
  public static FaultInjectingProxy start(int upstreamPort) throws IOException {
    return new FaultInjectingProxy(upstreamPort);
  }

  /**
   * Sets what the proxy does with the requests that arrive from now on.
   *
   * @param plan the plan
   * @return this proxy
   */
  public FaultInjectingProxy plan(FaultPlan plan) {
    this.plan = plan;
    return this;
  }

  /**
   * Sets the {@code Retry-After} of the proxy's own answers (2 and 1 seconds until set).
   *
   * @param on503 the seconds {@link Fault#ANSWER_503} asks the client to wait
   * @param on429 the seconds {@link Fault#ANSWER_429} asks the client to wait
   * @return this proxy
   */
  public FaultInjectingProxy retryAfterSeconds(long on503, long on429) {
    retryAfter503Seconds = on503;
    retryAfter429Seconds = on429;
    return this;
  }

  /**
   * Sets how {@link Fault#FORWARD_SLOWED_THEN_DROP} slows the server down and when it drops the
   * client: the header the server reads as "take your time", and the pause after which the client's
   * connection closes. Until set, it adds no header and closes after 150 ms.
   *
   * @param header the header's name
   * @param value its value
   * @param dropAfter how long after forwarding the client's connection closes
   * @return this proxy
   */
  public FaultInjectingProxy slowRequests(String header, String value, Duration dropAfter) {
    slowHeaderLine = header + ": " + value;
    slowDropAfter = dropAfter;
    return this;
  }

  /**
   * The proxy's address for a path; clients call it instead of the server's.
   *
   * @param pathAndQuery the path, with its query if any; empty for the server's root
   * @return {@code http://127.0.0.1:<port><pathAndQuery>}
   */
  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort() + pathAndQuery);
  }

  /**
   * Every request that arrived, in arrival order: one per attempt of every client, at the wire.
   *
   * @return a snapshot of the exchanges
   */
  public List<ProxyExchange> exchanges() {
    return List.copyOf(exchanges);
  }

  /**
   * One request, by arrival order.
   *
   * @param index 0 for the first request
   * @return its exchange
   * @throws IndexOutOfBoundsException if fewer requests arrived
   */
  public ProxyExchange exchange(int index) {
    return exchanges.get(index);
  }

  /**
   * Whether the server answered some request with {@code status}, whether or not the client got the
   * answer.
   *
   * @param status the status
   * @return true if some exchange's upstream status is {@code status}
   */
  public boolean sawUpstreamStatus(int status) {
    return exchanges.stream().anyMatch(e -> e.upstreamStatus() == status);
  }

  /**
   * How many requests got each fault.
   *
   * @return every fault, in declaration order, with its count (0 for those none got)
   */
  public Map<Fault, Long> faultCounts() {
    Map<Fault, Long> counts = new EnumMap<>(Fault.class);
    for (Fault f : Fault.values()) {
      counts.put(f, 0L);
    }
    exchanges.forEach(e -> counts.merge(e.fault(), 1L, Long::sum));
    return counts;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          throw new IllegalStateException("proxy accept failed", e);
        }
        return;
      }
      if (hold(client)) {
        try {
          executor.execute(() -> serve(client));
        } catch (RejectedExecutionException closing) {
          release(client);
        }
      }
    }
  }

  /**
   * Registers a socket for close() to close; false (and the socket closed) if the proxy is closing.
   * The add comes before the check, and close() sets the flag before it walks the set, so every
   * socket is closed by one of them.
   */
  private boolean hold(Socket socket) {
    open.add(socket);
    if (closed) {
      release(socket);
      return false;
    }
    return true;
  }

  private void release(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  private void serve(Socket client) {
    ProxyExchange exchange = null;
    try {
      client.setSoTimeout(60_000);
      InputStream in = new BufferedInputStream(client.getInputStream());
      byte[] head = HttpWire.readHead(in);
      if (head == null) {
        return; // the client connected and left without a request
      }
      String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
      Map<String, List<String>> headers = HttpWire.headers(lines);
      if (headers.containsKey("transfer-encoding")) {
        throw new IllegalStateException("this proxy reads Content-Length bodies only: " + lines[0]);
      }
      byte[] body =
          in.readNBytes(
              Integer.parseInt(headers.getOrDefault("content-length", List.of("0")).get(0)));
      exchange = record(lines[0], headers);
      OutputStream out = client.getOutputStream();
      switch (exchange.fault()) {
        case RESET_WITHOUT_FORWARDING -> client.setSoLinger(true, 0); // the close below sends RST
        case ANSWER_503 -> HttpWire.answer(out, "503 Service Unavailable", retryAfter503Seconds);
        case ANSWER_429 -> HttpWire.answer(out, "429 Too Many Requests", retryAfter429Seconds);
        case FORWARD_SLOWED_THEN_DROP -> {
          ProxyExchange slow = exchange;
          String slowHeader = slowHeaderLine;
          executor.execute(() -> forwardReporting(lines, slowHeader, body, slow));
          Thread.sleep(
              slowDropAfter.toMillis()); // then the close below, while the server still processes
        }
        default -> relay(client, in, out, exchange, forward(lines, null, body, exchange));
      }
      out.flush();
    } catch (IOException | RuntimeException e) {
      report(exchange, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // close() interrupts a pause: the proxy is closing
    } finally {
      release(client);
    }
  }

  private ProxyExchange record(String requestLine, Map<String, List<String>> headers) {
    String[] parts = requestLine.split(" ", 3); // method, target, version
    Fault fault = plan.next();
    synchronized (exchanges) {
      ProxyExchange exchange =
          new ProxyExchange(
              exchanges.size(),
              parts[0],
              parts[1],
              headers.getOrDefault("idempotency-key", List.of()),
              fault);
      exchanges.add(exchange);
      return exchange;
    }
  }

  /** What the client gets of a forwarded request's {@code response}, by the exchange's fault. */
  private static void relay(
      Socket client, InputStream in, OutputStream out, ProxyExchange exchange, byte[] response)
      throws IOException {
    switch (exchange.fault()) {
      case FORWARD -> out.write(response);
      case FORWARD_THEN_DROP -> {} // the close after this sends no byte
      case FORWARD_THEN_RESET -> client.setSoLinger(true, 0); // the close after this sends RST
      case FORWARD_THEN_TRUNCATE -> {
        if (exchange.upstreamHeader("Content-Length") == null
            || exchange.upstreamBodyLength() < 2) {
          throw new IllegalStateException(
              "cannot truncate a response without a Content-Length body");
        }
        out.write(
            response,
            0,
            HttpWire.headEnd(response)
                + HttpWire.END_OF_HEAD.length
                + exchange.upstreamBodyLength() / 2);
      }
      case FORWARD_THEN_STALL -> {
        // hold the response back until the client gives up and closes, or the proxy closes
        try {
          while (in.read() >= 0) {
            // discard
          }
        } catch (IOException hungUp) {
          // the client hung up, or the proxy closed: either way, never answer
        }
      }
      default -> throw new IllegalStateException("not a forwarding fault: " + exchange.fault());
    }
  }

  private void forwardReporting(
      String[] lines, String extraHeader, byte[] body, ProxyExchange exchange) {
    try {
      forward(lines, extraHeader, body, exchange);
    } catch (IOException | RuntimeException e) {
      report(exchange, e);
    }
  }

  /**
   * Forwards the request over a fresh connection with {@code Connection: close}, reads the response
   * to its end, records it on the exchange and returns it.
   */
  private byte[] forward(String[] lines, String extraHeader, byte[] body, ProxyExchange exchange)
      throws IOException {
    byte[] response;
    Socket upstream = new Socket();
    if (!hold(upstream)) {
      throw new IOException("proxy closed");
    }
    try {
      upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort));
      upstream.setSoTimeout(60_000);
      OutputStream up = upstream.getOutputStream();
      up.write(HttpWire.forwardedHead(lines, extraHeader));
      up.write(body);
      up.flush();
      response = upstream.getInputStream().readAllBytes();
    } finally {
      release(upstream);
    }
    int headEnd = HttpWire.headEnd(response);
    if (headEnd < 0) {
      throw new IllegalStateException(
          "upstream sent no complete response head: " + response.length + " bytes");
    }
    String[] responseLines =
        new String(response, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
    Map<String, String> responseHeaders = new LinkedHashMap<>();
    HttpWire.headers(responseLines)
        .forEach((name, values) -> responseHeaders.put(name, values.get(0)));
    exchange.upstream(
        Integer.parseInt(responseLines[0].split(" ", 3)[1]),
        responseHeaders,
        Arrays.copyOfRange(response, headEnd + HttpWire.END_OF_HEAD.length, response.length));
    return response;
  }

  /**
   * Logs a failure while the proxy is open (after close, every failure is the close's doing). A
   * peer that went away is what faults make, so it is only information; anything else is the
   * proxy's or the request's fault.
   */
  private void report(ProxyExchange exchange, Exception e) {
    if (!closed) {
      LOG.log(
          e instanceof IOException ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
          "fault-injecting proxy: "
              + (exchange == null ? "reading a request" : exchange)
              + ": "
              + e);
    }
  }

  /**
   * Stops accepting, closes every socket, and waits for the proxy's threads to end.
   *
   * @throws IllegalStateException if a thread of the proxy is still running 5 s after its sockets
   *     closed
   */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    open.forEach(this::release);
    threads.shutDownAndJoin(GRACE, "fault-injecting proxy");
  }
}
