package dev.idempotency.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server that answers one request with {@code 200} and 100 bytes sent one every 100 ms (10 s in
 * all): the body's ({@link #start()}), or a header's, before the end of the head ({@link
 * #startTricklingHead()}). For the tests of a deadline over the response: a read timeout never
 * fires, as every read gets a byte in time. {@link #close()} ends the trickle and joins its thread.
 */
public final class TricklingServer implements AutoCloseable {
  /** The body's length in bytes. */
  public static final int BODY_LENGTH = 100;

  private final ServerSocket listener;
  private final AtomicInteger bytesSent = new AtomicInteger();
  private final Thread thread;
  private final boolean head;

  private TricklingServer(boolean head) throws IOException {
    this.head = head;
    listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    thread = new Thread(this::trickle, "trickling-server");
    thread.start();
  }

  /**
   * Starts the server on a loopback port.
   *
   * @return the running server
   * @throws IOException if no port could be bound
   */
  public static TricklingServer start() throws IOException {
    return new TricklingServer(false);
  }

  /**
   * Starts a server that trickles a header line instead: the status line at once, then a header of
   * {@link #BODY_LENGTH} bytes one every 100 ms, then the end of the head and an empty body.
   *
   * @return the running server
   * @throws IOException if no port could be bound
   */
  public static TricklingServer startTricklingHead() throws IOException {
    return new TricklingServer(true);
  }

  /**
   * The server's address.
   *
   * @return {@code http://127.0.0.1:<port>/}
   */
  public String url() {
    return "http://127.0.0.1:" + listener.getLocalPort() + "/";
  }

  /**
   * How many trickled bytes went out.
   *
   * @return the count, {@link #BODY_LENGTH} once the body is complete
   */
  public int bytesSent() {
    return bytesSent.get();
  }

  private void trickle() {
    try (Socket socket = listener.accept()) {
      InputStream in = socket.getInputStream();
      byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      int matched = 0;
      while (matched < end.length) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
      }
      OutputStream out = socket.getOutputStream();
      out.write(
          (head
                  ? "HTTP/1.1 200 OK\r\nX-Trickle: "
                  : "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                      + BODY_LENGTH
                      + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      for (int i = 0; i < BODY_LENGTH; i++) {
        out.write('x');
        out.flush();
        bytesSent.incrementAndGet();
        Thread.sleep(100);
      }
      if (head) {
        out.write("\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client hung up, or close() closed the listener: the trickle ends
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Closes the listener and the connection, and waits for the thread to end.
   *
   * @throws IllegalStateException if the thread is still running after 15 s
   */
  @Override
  public void close() {
    try {
      listener.close();
      thread.interrupt();
      thread.join(Duration.ofSeconds(15).toMillis());
    } catch (IOException e) {
      throw new IllegalStateException("closing the listener failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the trickle ended", e);
    }
    if (thread.isAlive()) {
      throw new IllegalStateException("the trickling server's thread did not end");
    }
  }
}
