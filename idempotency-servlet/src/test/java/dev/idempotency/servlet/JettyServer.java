package dev.idempotency.servlet;

import dev.idempotency.http.IdempotencyHttp;
import jakarta.servlet.DispatcherType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A real Jetty 12 on 127.0.0.1 and an ephemeral port: test authentication, the filter, then {@link TestApp}. */
final class JettyServer implements AutoCloseable {
  final TestApp app = new TestApp();
  /** One client for every test (Java 17's HttpClient has no close); HTTP/1.1, so each request is plain HTTP. */
  static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final Server server = new Server();
  private final int port;

  JettyServer(IdempotencyHttp http) throws Exception {
    app.http = http;
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addFilter(new FilterHolder(new TestApp.TestAuthFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addFilter(new FilterHolder(new IdempotencyFilter(http)), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(app), "/*");
    server.setHandler(context);
    server.start();
    port = connector.getLocalPort();
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  HttpRequest.Builder post(String path, String key, String user, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    if (user != null) {
      b.header("X-Test-User", user);
    }
    return b;
  }

  HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  HttpResponse<byte[]> post(String path, String key, String body) throws IOException, InterruptedException {
    return send(post(path, key, "alice", body));
  }

  /**
   * Sends raw bytes over a socket (for header values {@link HttpClient} refuses to send) and returns the raw
   * response (the server closes the connection).
   */
  String raw(byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      in.transferTo(response);
      return response.toString(StandardCharsets.UTF_8);
    }
  }

  /** A raw POST with one Idempotency-Key header whose value is {@code keyBytes}, closing the connection after. */
  String rawPostWithKey(byte[] keyBytes, String path) throws IOException {
    ByteArrayOutputStream req = new ByteArrayOutputStream();
    String body = "{}";
    req.writeBytes(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-User: alice\r\nConnection: close\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\nIdempotency-Key: ")
        .getBytes(StandardCharsets.US_ASCII));
    req.writeBytes(keyBytes);
    req.writeBytes(("\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
    return raw(req.toByteArray());
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
