package dev.idempotency.client.functional;

import dev.idempotency.client.ThreadLeakGuard;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy in front of a real HTTP server that fails on purpose, at the wire, following a script of
 * actions (one per request as it arrives; the last one repeats). The faults that lose a response act only after
 * the server's whole response has arrived at the proxy: behind the idempotency filter that means the result is
 * already stored (the filter stores before it writes a byte), so what the test loses is exactly "the side effect
 * happened, the answer did not arrive".
 *
 * <p>One request per client connection: the proxy reads one HTTP/1.1 request (Content-Length bodies only), forwards
 * it over a fresh connection with {@code Connection: close}, and closes the client connection after its action.
 * Every request is recorded ({@link #exchanges()}), so tests count attempts at the wire, below every retry layer.
 *
 * <p>{@link #close()} closes every socket, the client's and the server's sides both, and waits for every thread of
 * the proxy to end; it fails if one does not. The threads are not daemons, so one left running is a leak that
 * {@code ThreadLeakGuard} reports for the test that left it.
 */
final class FaultyProxy implements AutoCloseable {
  /** What the proxy does with one request. */
  enum Action {
    /** Forward, relay the response. */
    FORWARD,
    /** Forward, read the whole response, then close the client connection without sending a byte. */
    FORWARD_THEN_DROP,
    /** Forward, read the whole response, then reset the client connection (RST) without sending a byte. */
    FORWARD_THEN_RESET,
    /** Forward, then relay the status line, the headers and half of the body, and close. */
    FORWARD_THEN_TRUNCATE,
    /** Forward, read the whole response, then hold it back until the client hangs up (past its attempt timeout). */
    FORWARD_THEN_STALL,
    /** Answer 503 with {@code Retry-After: 2} without forwarding (a shedding load balancer). */
    ANSWER_503_RETRY_AFTER_2,
    /** Answer 429 with {@code Retry-After: 1} without forwarding (a rate limiter in front). */
    ANSWER_429_RETRY_AFTER_1;

    boolean forwards() {
      return name().startsWith("FORWARD");
    }
  }

  /** One request as it arrived at the proxy, and what became of it. */
  static final class Exchange {
    final int index;
    final String method;
    final String path;
    /** Every {@code Idempotency-Key} header value on the request, in order (a well-behaved client sends one). */
    final List<String> idempotencyKeys;
    final Action action;
    private final CountDownLatch upstreamDone = new CountDownLatch(1);
    private volatile int upstreamStatus = -1;
    private volatile Map<String, String> upstreamHeaders = Map.of();
    private volatile byte[] upstreamBody = new byte[0];

    Exchange(int index, String method, String path, List<String> idempotencyKeys, Action action) {
      this.index = index;
      this.method = method;
      this.path = path;
      this.idempotencyKeys = List.copyOf(idempotencyKeys);
      this.action = action;
    }

    /** @return the status the server answered (whether or not the client got it); -1 if not forwarded or not yet */
    int upstreamStatus() {
      return upstreamStatus;
    }

    /** @return the server's response header, by lower-case name, or null */
    String upstreamHeader(String name) {
      return upstreamHeaders.get(name.toLowerCase(Locale.ROOT));
    }

    String upstreamBody() {
      return new String(upstreamBody, StandardCharsets.UTF_8);
    }

    /** Waits until the server's whole response to this request has arrived at the proxy. */
    boolean awaitUpstream(Duration timeout) throws InterruptedException {
      return upstreamDone.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
      return "#" + index + " " + method + " " + path + " keys=" + idempotencyKeys + " " + action + " -> "
          + upstreamStatus;
    }
  }

  private final int upstreamPort;
  private final ServerSocket listener;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> new Thread(r, "faulty-proxy"));
  private final Deque<Action> script = new ArrayDeque<>();
  private Action last = Action.FORWARD;
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  /** Every socket the proxy holds, both sides, so that close() can unblock every read. */
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  FaultyProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    executor.execute(this::acceptLoop);
  }

  /** Appends actions; the last one repeats once the script runs out (before any: {@link Action#FORWARD}). */
  synchronized FaultyProxy script(Action... actions) {
    for (Action a : actions) {
      script.addLast(a);
      last = a;
    }
    return this;
  }

  private synchronized Action next() {
    Action a = script.pollFirst();
    return a != null ? a : last;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort() + path);
  }

  /** @return every request that arrived, in arrival order */
  List<Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  Exchange exchange(int index) {
    return exchanges.get(index);
  }

  /** @return whether the server answered some request with {@code status} (whether or not the client got it) */
  boolean sawUpstreamStatus(int status) {
    return exchanges.stream().anyMatch(e -> e.upstreamStatus == status);
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
   * Registers a socket for close() to close; false (and the socket closed) if the proxy is closing. The add comes
   * before the check, and close() sets the flag before it walks the set, so every socket is closed by one of them.
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
    try {
      client.setSoTimeout(60_000);
      InputStream in = new BufferedInputStream(client.getInputStream());
      byte[] head = readHead(in);
      if (head == null) {
        return; // the client connected and left without a request
      }
      String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
      String[] requestLine = lines[0].split(" ");
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
            .add(lines[i].substring(colon + 1).trim());
      }
      if (headers.containsKey("transfer-encoding")) {
        throw new IllegalStateException("this proxy reads Content-Length bodies only: " + lines[0]);
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", List.of("0")).get(0));
      byte[] body = in.readNBytes(length);
      Action action = next();
      Exchange exchange;
      synchronized (exchanges) {
        exchange = new Exchange(exchanges.size(), requestLine[0], requestLine[1],
            headers.getOrDefault("idempotency-key", List.of()), action);
        exchanges.add(exchange);
      }
      OutputStream out = client.getOutputStream();
      switch (action) {
        case ANSWER_503_RETRY_AFTER_2 -> answer(out, "503 Service Unavailable", "2");
        case ANSWER_429_RETRY_AFTER_1 -> answer(out, "429 Too Many Requests", "1");
        default -> {
          byte[] response = forward(lines, body, exchange);
          switch (action) {
            case FORWARD -> out.write(response);
            case FORWARD_THEN_DROP -> { } // close below without a byte
            case FORWARD_THEN_RESET -> client.setSoLinger(true, 0); // close below sends RST
            case FORWARD_THEN_TRUNCATE -> {
              int headEnd = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) + 4;
              if (exchange.upstreamHeader("Content-Length") == null || exchange.upstreamBody.length < 2) {
                throw new IllegalStateException("cannot truncate a response without a Content-Length body");
              }
              out.write(response, 0, headEnd + exchange.upstreamBody.length / 2);
            }
            case FORWARD_THEN_STALL -> {
              out.flush();
              // hold the response back until the client gives up and closes, or the proxy closes
              try {
                while (in.read() >= 0) {
                  // discard
                }
              } catch (IOException hungUp) {
                // the client hung up, or the proxy closed: either way, never answer
              }
            }
            default -> throw new IllegalStateException(action.toString());
          }
        }
      }
      out.flush();
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        System.err.println("faulty-proxy: " + e);
      }
    } finally {
      release(client);
    }
  }

  /** Forwards the request over a fresh connection with {@code Connection: close}, reads the response to EOF. */
  private byte[] forward(String[] lines, byte[] body, Exchange exchange) throws IOException {
    StringBuilder head = new StringBuilder(lines[0]).append("\r\n");
    for (int i = 1; i < lines.length; i++) {
      if (!lines[i].regionMatches(true, 0, "Connection:", 0, 11)) {
        head.append(lines[i]).append("\r\n");
      }
    }
    head.append("Connection: close\r\n\r\n");
    byte[] response;
    Socket upstream = new Socket();
    if (!hold(upstream)) {
      throw new IOException("proxy closed");
    }
    try {
      upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort));
      upstream.setSoTimeout(60_000);
      OutputStream up = upstream.getOutputStream();
      up.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      up.write(body);
      up.flush();
      response = upstream.getInputStream().readAllBytes();
    } finally {
      release(upstream);
    }
    int headEnd = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    if (headEnd < 0) {
      throw new IllegalStateException("upstream sent no complete response head: " + response.length + " bytes");
    }
    String[] responseLines = new String(response, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
    Map<String, String> responseHeaders = new LinkedHashMap<>();
    for (int i = 1; i < responseLines.length; i++) {
      int colon = responseLines[i].indexOf(':');
      responseHeaders.putIfAbsent(responseLines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
          responseLines[i].substring(colon + 1).trim());
    }
    exchange.upstreamHeaders = Map.copyOf(responseHeaders);
    exchange.upstreamBody = java.util.Arrays.copyOfRange(response, headEnd + 4, response.length);
    exchange.upstreamStatus = Integer.parseInt(responseLines[0].split(" ")[1]);
    exchange.upstreamDone.countDown();
    return response;
  }

  private static void answer(OutputStream out, String status, String retryAfter) throws IOException {
    byte[] body = ("proxy: " + status + "\n").getBytes(StandardCharsets.US_ASCII);
    out.write(("HTTP/1.1 " + status + "\r\nRetry-After: " + retryAfter + "\r\nContent-Type: text/plain\r\n"
        + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(body);
  }

  /** Reads up to and including the blank line; null if the stream ended before the first byte. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) {
          return null;
        }
        throw new IOException("request head cut off after " + head.size() + " bytes");
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (head.size() > 65_536) {
        throw new IOException("request head too large");
      }
    }
    byte[] bytes = head.toByteArray();
    return java.util.Arrays.copyOf(bytes, bytes.length - 4);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * Stops accepting, closes every socket, and waits for the proxy's threads to end.
   *
   * @throws IllegalStateException if a thread of the proxy is still running after {@link ThreadLeakGuard#GRACE}
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
    ThreadLeakGuard.shutDown(executor, "faulty proxy");
  }
}
