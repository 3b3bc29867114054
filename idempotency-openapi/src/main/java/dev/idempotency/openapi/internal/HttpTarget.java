package dev.idempotency.openapi.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The server under test of {@code verify} and {@code gates}: its base URL, pinned to the address
 * checked, and the one way requests are sent to it. Both commands change state on the server, so a
 * host that is not loopback is refused unless forced, a path that would leave the base URL is
 * refused, redirects are not followed, and an answer is bounded in time and size. {@link #close()}
 * stops the client's threads (Java 17's {@code HttpClient} cannot be closed; its executor can).
 */
public final class HttpTarget implements AutoCloseable {
  /** The largest answer read: a test server's answers are small, a hostile one's need not be. */
  private static final long MAX_ANSWER_BYTES = 16L << 20;

  private final URI base;
  private final Duration timeout;
  private final Map<String, String> extraHeaders;
  private final ExecutorService executor = Executors.newCachedThreadPool(HttpTarget::daemon);
  private final HttpClient client;

  private HttpTarget(URI base, Duration timeout, Map<String, String> extraHeaders) {
    this.base = base;
    this.timeout = timeout;
    this.extraHeaders = Map.copyOf(extraHeaders);
    // HTTP/1.1: concurrent requests are concurrent connections, as independent clients' are
    this.client =
        HttpClient.newBuilder()
            .executor(executor)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * The target at {@code baseUrl}, its host resolved once and pinned: every request goes to the
   * address checked, whatever the name resolves to later.
   *
   * @param extraHeaders sent on every request (an {@code Authorization} the test server wants)
   * @throws IllegalArgumentException when the URL is not http(s) with a host, or its host is not
   *     loopback and {@code force} is false
   */
  public static HttpTarget to(
      String baseUrl, boolean force, Duration timeout, Map<String, String> extraHeaders) {
    URI uri;
    try {
      uri = new URI(baseUrl);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("--base-url is not a URL: " + e.getMessage(), e);
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null
        || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "--base-url must be http(s)://host[:port][/path], but was \"" + baseUrl + "\"");
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(uri.getHost());
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--base-url host " + uri.getHost() + " is unknown", e);
    }
    InetAddress chosen = addresses[0];
    for (InetAddress a : addresses) {
      if (!a.isLoopbackAddress() && !force) {
        throw new IllegalArgumentException(
            "--base-url host "
                + uri.getHost()
                + " resolves to "
                + a.getHostAddress()
                + ", not loopback: verify and gates send requests that change state; run them on"
                + " a test server on this machine, or pass --force for a staging copy you own");
      }
      if (a instanceof Inet4Address && !(chosen instanceof Inet4Address)) {
        chosen = a; // a server on "localhost" listens on IPv4 more often than on ::1
      }
    }
    // https needs the name for the certificate, so only plain http is pinned to the address
    String host =
        "https".equals(uri.getScheme())
            ? uri.getHost()
            : chosen instanceof Inet4Address
                ? chosen.getHostAddress()
                : "[" + chosen.getHostAddress() + "]";
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
    URI pinned =
        URI.create(
            uri.getScheme() + "://" + host + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + path);
    return new HttpTarget(pinned, timeout, extraHeaders);
  }

  /** The pinned base URL requests go to. */
  public URI base() {
    return base;
  }

  /**
   * Sends {@code r} and reads the whole answer, within the timeout.
   *
   * @throws IOException when the request fails, the answer is too large, or the path leaves the
   *     base URL (then nothing is sent)
   * @throws TimeoutException when the answer, body included, takes longer than the timeout
   */
  Answer send(Outgoing r) throws IOException, InterruptedException, TimeoutException {
    URI uri = URI.create(base + r.path());
    if (!uri.getHost().equals(base.getHost()) || uri.getPort() != base.getPort()) {
      throw new IOException("the path " + r.path() + " leaves " + base + "; not sent");
    }
    String body = r.method().equals("GET") ? null : r.body();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .method(
                r.method(),
                body != null
                    ? HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)
                    : HttpRequest.BodyPublishers.noBody());
    extraHeaders.forEach(b::header);
    r.headers().forEach(b::setHeader);
    if (body != null && r.contentType() != null) {
      b.setHeader("Content-Type", r.contentType());
    }
    CompletableFuture<HttpResponse<byte[]>> call =
        client.sendAsync(b.build(), info -> new BoundedBody(MAX_ANSWER_BYTES));
    try {
      // the request's timeout bounds the wait for the headers; this bounds the body too, which a
      // server may trickle
      HttpResponse<byte[]> response = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return new Answer(response.statusCode(), response.body(), response.headers().map());
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      call.cancel(true);
      throw e;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "openapi-target");
    t.setDaemon(true);
    return t;
  }

  /** Collects a body up to a limit; over it, the answer fails rather than fill the heap. */
  private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final HttpResponse.BodySubscriber<byte[]> bytes =
        HttpResponse.BodySubscribers.ofByteArray();
    private final long limit;
    private long received;
    private Flow.@Nullable Subscription subscription;

    BoundedBody(long limit) {
      this.limit = limit;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return bytes.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      bytes.onSubscribe(s);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer item : items) {
        received += item.remaining();
      }
      if (received > limit) {
        Flow.Subscription s = subscription;
        if (s != null) {
          s.cancel();
        }
        bytes.onError(new IOException("the answer is over " + limit + " bytes; not compared"));
        return;
      }
      bytes.onNext(items);
    }

    @Override
    public void onError(Throwable t) {
      bytes.onError(t);
    }

    @Override
    public void onComplete() {
      bytes.onComplete();
    }
  }
}
