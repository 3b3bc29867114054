package dev.idempotency.servlet;

import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.testing.JettyHarness;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@link TestApp} (or another servlet) behind test authentication and the filter, in a real Jetty
 * ({@link JettyHarness}), and the requests the tests send it.
 */
final class FilteredTestApp implements AutoCloseable {
  final TestApp app = new TestApp();
  private final JettyHarness jetty;

  FilteredTestApp(IdempotencyHttp http) throws Exception {
    jetty = JettyHarness.start(app, new TestApp.TestAuthFilter(), new IdempotencyFilter(http));
  }

  /**
   * Another application behind the same filters, with {@code outermost} in front of them ({@link
   * #app} is then unused).
   */
  FilteredTestApp(HttpServlet servlet, Filter outermost, IdempotencyHttp http) throws Exception {
    jetty =
        JettyHarness.start(
            servlet, outermost, new TestApp.TestAuthFilter(), new IdempotencyFilter(http));
  }

  URI uri(String pathAndQuery) {
    return jetty.uri(pathAndQuery);
  }

  HttpRequest.Builder post(String path, String key, String user, String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
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
    return JettyHarness.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  HttpResponse<byte[]> post(String path, String key, String body)
      throws IOException, InterruptedException {
    return send(post(path, key, "alice", body));
  }

  /**
   * A raw POST with one Idempotency-Key header whose value is {@code keyBytes} (bytes {@code
   * HttpClient} refuses to send), closing the connection after; returns the raw response.
   */
  String rawPostWithKey(byte[] keyBytes, String path) throws IOException {
    ByteArrayOutputStream req = new ByteArrayOutputStream();
    String body = "{}";
    req.writeBytes(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-User: alice\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + body.length()
                + "\r\nIdempotency-Key: ")
            .getBytes(StandardCharsets.US_ASCII));
    req.writeBytes(keyBytes);
    req.writeBytes(("\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
    return jetty.raw(req.toByteArray());
  }

  /**
   * A raw request of {@code method} (sent as written, in any case) without an Idempotency-Key,
   * closing the connection after; returns the raw response.
   */
  String rawWithoutKey(String method, String path) throws IOException {
    String body = "{}";
    return jetty.raw(
        (method
                + " "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-User: alice\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + body.length()
                + "\r\n\r\n"
                + body)
            .getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public void close() {
    jetty.close();
  }
}
