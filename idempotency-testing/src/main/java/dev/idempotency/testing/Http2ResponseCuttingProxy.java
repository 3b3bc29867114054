package dev.idempotency.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A loopback TCP proxy in front of a gRPC server that loses responses after the server sent them:
 * it forwards the client's bytes as they are, reads the server's HTTP/2 frames one by one, and when
 * the first HEADERS frame of a stream (the start of a response) is one to lose, it drops it and
 * closes both connections. Behind the idempotency interceptor, which sends nothing before the
 * answer is stored, that is "the handler committed, the answer never arrived". Each response is
 * numbered in the order its HEADERS frame arrives, across connections; {@link #cutResponses}
 * decides by that number.
 *
 * <p>The threads are this proxy's own; {@link #close} closes every socket and waits for them. A
 * test fixture, not a general proxy (no TLS, HTTP/2 prior knowledge only, as gRPC's plaintext).
 * Used by idempotency-grpc's tests and the gRPC example.
 */
public final class Http2ResponseCuttingProxy implements AutoCloseable {
  private static final int HEADERS = 0x1;

  private final int upstreamPort;
  private final ServerSocket listener;
  private final ThreadPools.Joinable threads =
      ThreadPools.newCachedPool("http2-response-cutting-proxy");
  private final ExecutorService executor = threads.executor();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger responses = new AtomicInteger();
  private final AtomicInteger cuts = new AtomicInteger();
  private volatile IntPredicate cut = n -> false;
  private volatile boolean closed;

  private Http2ResponseCuttingProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    executor.execute(this::acceptLoop);
  }

  public static Http2ResponseCuttingProxy start(int upstreamPort) throws IOException {
    return new Http2ResponseCuttingProxy(upstreamPort);
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Which responses to lose, by their number (0 for the first response through the proxy). */
  public void cutResponses(IntPredicate which) {
    this.cut = which;
  }

  /** The responses whose HEADERS frame reached the proxy, cut or forwarded. */
  public int responses() {
    return responses.get();
  }

  /** The responses lost. */
  public int cuts() {
    return cuts.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket server = new Socket();
      open.add(client);
      open.add(server);
      try {
        server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 5000);
        executor.execute(() -> pump(client, server));
        executor.execute(() -> frames(server, client));
      } catch (IOException | RuntimeException e) {
        closeBoth(client, server);
      }
    }
  }

  /** Client to server: bytes as they come. */
  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16384];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // a side closed: close both below
    } finally {
      closeBoth(from, to);
    }
  }

  /** Server to client: frame by frame, cutting where the plan says. */
  private void frames(Socket server, Socket client) {
    Set<Integer> answered = new HashSet<>();
    byte[] header = new byte[9];
    try (DataInputStream in = new DataInputStream(server.getInputStream())) {
      OutputStream out = client.getOutputStream();
      while (true) {
        in.readFully(header);
        int length = ((header[0] & 0xFF) << 16) | ((header[1] & 0xFF) << 8) | (header[2] & 0xFF);
        int type = header[3] & 0xFF;
        int stream =
            ((header[5] & 0x7F) << 24)
                | ((header[6] & 0xFF) << 16)
                | ((header[7] & 0xFF) << 8)
                | (header[8] & 0xFF);
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (type == HEADERS && stream != 0 && answered.add(stream)) {
          int number = responses.getAndIncrement();
          if (cut.test(number)) {
            cuts.incrementAndGet();
            return; // dropped, and both connections closed below
          }
        }
        out.write(header);
        out.write(payload);
        out.flush();
      }
    } catch (IOException e) {
      // a side closed
    } finally {
      closeBoth(server, client);
    }
  }

  private void closeBoth(Socket a, Socket b) {
    for (Socket s : new Socket[] {a, b}) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
      open.remove(s);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    threads.shutDownAndJoin(Duration.ofSeconds(10), "HTTP/2 response-cutting proxy");
  }
}
