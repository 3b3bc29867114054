package dev.idempotency.store.redis;

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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of a Redis server that can lose a reply: armed with a marker, it forwards
 * the next command containing the marker to the server, swallows the server's answer and closes the
 * connection, as a network that fails after the server ran the command. Lettuce then reconnects
 * (through the proxy) and writes the unanswered command again. It counts the commands with the
 * marker it forwarded, so a test can prove the command really reached the server twice. It can also
 * hold every reply back for a while ({@link #delayReplies}). Threads: one accepting, two per
 * connection; {@link #close()} ends them all.
 */
final class ReplyCutter implements AutoCloseable {
  private final InetSocketAddress upstream;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> pumps = new CopyOnWriteArrayList<>();
  private final AtomicReference<byte[]> armed = new AtomicReference<>();
  private final AtomicReference<byte[]> counted = new AtomicReference<>(new byte[0]);
  private final AtomicInteger seen = new AtomicInteger();
  private final AtomicInteger cuts = new AtomicInteger();
  private final AtomicLong replyDelayMillis = new AtomicLong();

  ReplyCutter(String redisUri) throws IOException {
    URI uri = URI.create(redisUri);
    upstream = new InetSocketAddress(uri.getHost(), uri.getPort());
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::accept, "reply-cutter-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String uri() {
    return "redis://127.0.0.1:" + listener.getLocalPort();
  }

  /** Loses the reply to the next command whose bytes contain {@code marker}, and counts them. */
  void cutReplyTo(String marker) {
    byte[] m = marker.getBytes(StandardCharsets.US_ASCII);
    counted.set(m);
    seen.set(0);
    armed.set(m);
  }

  /** How many commands containing the marker of {@link #cutReplyTo} were forwarded since. */
  int forwarded() {
    return seen.get();
  }

  /** How many replies were lost so far. */
  int cuts() {
    return cuts.get();
  }

  /** Holds every reply chunk back for {@code delay} before forwarding it. */
  void delayReplies(Duration delay) {
    replyDelayMillis.set(delay.toMillis());
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(upstream.getAddress(), upstream.getPort());
        sockets.add(client);
        sockets.add(server);
        boolean[] cutNext = {false};
        start(() -> requests(client, server, cutNext));
        start(() -> replies(server, client, cutNext));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void start(Runnable pump) {
    Thread t = new Thread(pump, "reply-cutter-pump");
    t.setDaemon(true);
    pumps.add(t);
    t.start();
  }

  private void requests(Socket client, Socket server, boolean[] cutNext) {
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = client.getInputStream();
        OutputStream out = server.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        if (contains(buffer, n, counted.get())) {
          seen.incrementAndGet();
          byte[] marker = armed.get();
          if (marker != null && contains(buffer, n, marker) && armed.compareAndSet(marker, null)) {
            synchronized (cutNext) {
              cutNext[0] = true;
            }
          }
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException closed) {
      // the other side closed, or the cut did
    } finally {
      closeQuietly(client, server);
    }
  }

  private void replies(Socket server, Socket client, boolean[] cutNext) {
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = server.getInputStream();
        OutputStream out = client.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) > 0) {
        boolean cut;
        synchronized (cutNext) {
          cut = cutNext[0];
        }
        if (cut) {
          cuts.incrementAndGet();
          return; // the reply is lost; finally closes both sides
        }
        long delay = replyDelayMillis.get();
        if (delay > 0) {
          Thread.sleep(delay);
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException closed) {
      // the other side closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(client, server);
    }
  }

  private static boolean contains(byte[] buffer, int length, byte[] marker) {
    if (marker.length == 0) {
      return false;
    }
    outer:
    for (int i = 0; i + marker.length <= length; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (buffer[i + j] != marker[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket... sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    sockets.forEach(ReplyCutter::closeQuietly);
    acceptor.join(5_000);
    for (Thread t : pumps) {
      t.join(5_000);
    }
  }
}
