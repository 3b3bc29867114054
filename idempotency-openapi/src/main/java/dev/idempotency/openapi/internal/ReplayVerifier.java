package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.OperationReport;
import dev.idempotency.openapi.Verdict;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
 * {@code verify}: sends each operation that claims a retry is harmless (a PUT or DELETE, a keyed
 * operation, one marked {@code x-idempotent}) twice, the keyed ones with one key, and compares the
 * second answer, and the state probe's answer after each, with the first. Sends to loopback only
 * unless forced: these requests change state, and a production API is no place for them.
 */
public final class ReplayVerifier {
  /** How one operation fared. */
  public enum Status {
    /** Both answers, and both probes, equal. */
    SAME,
    /** A difference: listed in the details. */
    DIFFERS,
    /** Not sent: no request could be built; the details say why. */
    SKIPPED,
    /** A request failed (refused, timed out); the details say how. */
    ERROR
  }

  /** One operation's result. */
  public record Result(String operation, Status status, List<String> details) {}

  private static final Set<Verdict> CLAIMS_HARMLESS_RETRY =
      Set.of(Verdict.ACCEPTS_KEY, Verdict.IDEMPOTENT_BY_METHOD, Verdict.VERIFIED_IDEMPOTENT);

  /**
   * The largest answer compared: a test server's answers are small, a hostile one's need not be.
   */
  private static final long MAX_ANSWER_BYTES = 16L << 20;

  private final URI base;
  private final String headerName;
  private final Map<String, String> extraHeaders;
  private final Set<String> ignored;
  private final Duration timeout;

  private ReplayVerifier(
      URI base,
      String headerName,
      Map<String, String> extraHeaders,
      Set<String> ignored,
      Duration timeout) {
    this.base = base;
    this.headerName = headerName;
    this.extraHeaders = Map.copyOf(extraHeaders);
    this.ignored = Set.copyOf(ignored);
    this.timeout = timeout;
  }

  /**
   * A verifier for {@code baseUrl}, its host resolved once and pinned: every request goes to the
   * address checked, whatever the name resolves to later.
   *
   * @throws IllegalArgumentException when the URL is not http(s) with a host, or its host is not
   *     loopback and {@code force} is false
   */
  public static ReplayVerifier to(
      String baseUrl,
      boolean force,
      String headerName,
      Map<String, String> extraHeaders,
      Set<String> ignored,
      Duration timeout) {
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
                + ", not loopback: verify sends every request twice and changes state; run it on a"
                + " test server on this machine, or pass --force for a staging copy you own");
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
    return new ReplayVerifier(pinned, headerName, extraHeaders, ignored, timeout);
  }

  /** The pinned base URL requests go to. */
  public URI base() {
    return base;
  }

  /**
   * Verifies every operation of {@code reports} that claims a harmless retry.
   *
   * @param documents the documents the reports came from
   * @param fromFile the user's requests by operation ({@code "PUT /orders/{id}"} or operationId)
   */
  public List<Result> verify(
      List<DocumentReader.Document> documents,
      List<OperationReport> reports,
      Map<String, RequestPlanner.Planned> fromFile) {
    List<Result> results = new ArrayList<>();
    // Java 17's HttpClient cannot be closed; its work runs on this executor, which can
    ExecutorService executor = Executors.newCachedThreadPool(ReplayVerifier::daemon);
    HttpClient client =
        HttpClient.newBuilder()
            .executor(executor)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    try {
      for (OperationReport report : reports) {
        if (!CLAIMS_HARMLESS_RETRY.contains(report.verdict())) {
          continue;
        }
        RequestPlanner.Planned planned = fromFile.get(report.name());
        if (planned == null && report.operationId() != null) {
          planned = fromFile.get(report.operationId());
        }
        if (planned == null) {
          RequestPlanner.Plan plan = planFromDocument(documents, report);
          if (plan.request() == null) {
            results.add(new Result(report.name(), Status.SKIPPED, List.of(plan.skipReason())));
            continue;
          }
          planned = plan.request();
        }
        results.add(verifyOne(client, report, planned));
      }
    } finally {
      executor.shutdownNow();
    }
    return results;
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "openapi-verify");
    t.setDaemon(true);
    return t;
  }

  private static RequestPlanner.Plan planFromDocument(
      List<DocumentReader.Document> documents, OperationReport report) {
    for (DocumentReader.Document d : documents) {
      if (!d.name().equals(report.document()) || d.api().getPaths() == null) {
        continue;
      }
      PathItem item = d.api().getPaths().get(report.path());
      if (item == null) {
        break;
      }
      Operation op = item.readOperationsMap().get(PathItem.HttpMethod.valueOf(report.method()));
      if (op != null) {
        return RequestPlanner.fromExamples(report.path(), item, op, new Components(d.api()));
      }
    }
    return RequestPlanner.Plan.skip("the operation is not in its document");
  }

  private Result verifyOne(HttpClient client, OperationReport report, RequestPlanner.Planned p) {
    String key =
        report.verdict() == Verdict.ACCEPTS_KEY ? "openapi-verify-" + UUID.randomUUID() : null;
    try {
      AnswerComparison.Answer first = send(client, report.method(), p.path(), p, key);
      AnswerComparison.Answer probe1 = p.probe() == null ? null : probe(client, p);
      AnswerComparison.Answer second = send(client, report.method(), p.path(), p, key);
      AnswerComparison.Answer probe2 = p.probe() == null ? null : probe(client, p);
      List<String> details =
          new ArrayList<>(AnswerComparison.differences("answer", first, second, ignored));
      if (probe1 != null && probe2 != null) {
        details.addAll(AnswerComparison.differences("probe", probe1, probe2, ignored));
      }
      if (details.isEmpty()) {
        details.add("answers " + first + (probe1 == null ? "" : ", probe " + probe1) + " equal");
        return new Result(report.name(), Status.SAME, details);
      }
      return new Result(report.name(), Status.DIFFERS, details);
    } catch (IOException | TimeoutException e) {
      return new Result(report.name(), Status.ERROR, List.of(String.valueOf(e)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(report.name(), Status.ERROR, List.of("interrupted"));
    }
  }

  private AnswerComparison.Answer probe(HttpClient client, RequestPlanner.Planned p)
      throws IOException, InterruptedException, TimeoutException {
    String probe = p.probe();
    return send(client, "GET", probe == null ? "/" : probe, p, null);
  }

  private AnswerComparison.Answer send(
      HttpClient client, String method, String path, RequestPlanner.Planned p, @Nullable String key)
      throws IOException, InterruptedException, TimeoutException {
    URI uri = URI.create(base + path);
    if (!uri.getHost().equals(base.getHost()) || uri.getPort() != base.getPort()) {
      throw new IOException("the path " + path + " leaves " + base + "; not sent");
    }
    String body = method.equals("GET") ? null : p.body();
    boolean withBody = body != null;
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .method(
                method,
                withBody
                    ? HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)
                    : HttpRequest.BodyPublishers.noBody());
    extraHeaders.forEach(b::header);
    p.headers().forEach(b::header);
    if (withBody && p.contentType() != null) {
      b.header("Content-Type", p.contentType());
    }
    if (key != null) {
      b.header(headerName, key);
    }
    CompletableFuture<HttpResponse<byte[]>> call =
        client.sendAsync(b.build(), info -> new BoundedBody(MAX_ANSWER_BYTES));
    try {
      // the request's timeout bounds the wait for the headers; this bounds the body too, which a
      // server may trickle
      HttpResponse<byte[]> r = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return new AnswerComparison.Answer(r.statusCode(), r.body());
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      call.cancel(true);
      throw e;
    }
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
