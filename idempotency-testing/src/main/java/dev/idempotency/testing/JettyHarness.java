package dev.idempotency.testing;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Jetty 12 (ee10) on 127.0.0.1 and an ephemeral port, for tests that run the servlet filter
 * in a real server: every request passes the given filters, in order (typically the test's
 * authentication, then the idempotency filter), then reaches one servlet, whatever its path. {@link
 * #close()} stops the server and its threads.
 */
public final class JettyHarness implements AutoCloseable {
  /**
   * One client for every test (Java 17's {@code HttpClient} has no close, so one per test would
   * leave its threads behind); HTTP/1.1, so each request is plain HTTP on the wire.
   */
  public static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final Server server = new Server();
  private final int port;

  private JettyHarness(HttpServlet servlet, Filter... filters) throws Exception {
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    for (Filter filter : filters) {
      context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    context.addServlet(new ServletHolder(servlet), "/*");
    server.setHandler(context);
    server.start();
    port = connector.getLocalPort();
  }

  /**
   * Starts a server whose every request passes {@code filters}, in order, then reaches {@code
   * servlet}.
   *
   * @param servlet the application, for every path
   * @param filters the filters in front of it, outermost first
   * @return the running server
   * @throws Exception if Jetty does not start
   */
  public static JettyHarness start(HttpServlet servlet, Filter... filters) throws Exception {
    return new JettyHarness(servlet, filters);
  }

  /**
   * The port the server listens on.
   *
   * @return the port, on 127.0.0.1
   */
  public int port() {
    return port;
  }

  /**
   * The address of a path on this server.
   *
   * @param pathAndQuery the path, with its query if any, starting with {@code /}
   * @return {@code http://127.0.0.1:<port><pathAndQuery>}
   */
  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  /**
   * Sends raw bytes over a new connection, for requests {@link HttpClient} refuses to send (such as
   * a header value with control characters), and returns everything the server sent until it closed
   * the connection: send {@code Connection: close} in the request.
   *
   * @param request the whole request, head and body
   * @return the raw response, decoded as UTF-8
   * @throws IOException if the connection fails, or the server sends nothing for 10 s
   */
  public String raw(byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      socket.getInputStream().transferTo(response);
      return response.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * Stops the server; its threads end with it.
   *
   * @throws IllegalStateException if Jetty fails to stop, or the wait for it is interrupted
   */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while Jetty was stopping", e);
    } catch (Exception e) {
      throw new IllegalStateException("Jetty failed to stop", e);
    }
  }
}
