package dev.idempotency.store.dynamodb;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP endpoint in front of dynalite, for what dynalite does not do itself. For the requests
 * a test names (by operation and request body) it answers one of DynamoDB's errors instead of
 * forwarding ({@link Fault}): throttling ({@code ProvisionedThroughputExceededException}), a
 * transaction holding the item ({@code TransactionConflictException}), or forwards the request and
 * then answers a 500 ({@code InternalServerError}: the write took effect, its answer was lost),
 * each with the HTTP status and JSON DynamoDB sends. With {@link #returnItemOnConditionFailure} it
 * also does what DynamoDB does for {@code ReturnValuesOnConditionCheckFailure=ALL_OLD} and dynalite
 * ignores: it adds the item, read with a consistent {@code GetItem}, to a {@code
 * ConditionalCheckFailedException}. That read is a second request, so unlike DynamoDB's the item
 * may be newer than the one the condition saw; the tests using it make no concurrent writes.
 */
final class DynamoFront implements AutoCloseable {
  private static final Pattern TABLE = Pattern.compile("\"TableName\":\"([^\"]+)\"");
  private static final Pattern KEY =
      Pattern.compile("\"Key\":(\\{\"pk\":\\{\"S\":\"(?:[^\"\\\\]|\\\\.)*\"\\}\\})");

  private final URI upstream;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(32);

  /** What the front answers instead of dynalite's answer. */
  enum Fault {
    /** HTTP 400 {@code ProvisionedThroughputExceededException}; nothing forwarded. */
    THROTTLED(
        400,
        "ProvisionedThroughputExceededException",
        "The level of configured provisioned throughput for the table was exceeded. Consider"
            + " increasing your provisioning level with the UpdateTable API."),
    /** HTTP 400 {@code TransactionConflictException}; nothing forwarded. */
    TRANSACTION_CONFLICT(
        400, "TransactionConflictException", "Transaction is ongoing for the item"),
    /** Forwarded, then HTTP 500 {@code InternalServerError} instead of dynalite's answer. */
    INTERNAL_ERROR_AFTER_FORWARDING(500, "InternalServerError", "Internal server error"),
    /**
     * No answer: the request is held (not forwarded) until the front closes, at most 30 s, as a
     * DynamoDB that stopped answering; the client's timeouts end the call.
     */
    STALLED(500, "InternalServerError", "stalled");

    final int status;
    final String body;

    Fault(int status, String type, String message) {
      this.status = status;
      this.body =
          "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
              + type
              + "\",\"message\":\""
              + message
              + "\"}";
    }
  }

  private record Rule(BiPredicate<String, String> when, Fault fault, AtomicInteger left) {}

  private volatile Rule rule = new Rule((op, body) -> false, Fault.THROTTLED, new AtomicInteger());
  private volatile boolean itemOnConditionFailure;
  private final AtomicInteger faults = new AtomicInteger();
  private final CountDownLatch closing = new CountDownLatch(1);

  private DynamoFront(URI upstream) throws IOException {
    this.upstream = upstream;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext("/", this::handle);
    server.setExecutor(threads);
    server.start();
  }

  static DynamoFront start(URI upstream) throws IOException {
    return new DynamoFront(upstream);
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Throttles the operations (X-Amz-Target's action, such as {@code UpdateItem}) it accepts. */
  DynamoFront throttle(Predicate<String> operations) {
    return fail((op, body) -> operations.test(op), Fault.THROTTLED, Integer.MAX_VALUE);
  }

  /**
   * Answers {@code fault} to the next {@code times} requests whose operation and JSON body {@code
   * when} accepts; replaces the rule before.
   */
  DynamoFront fail(BiPredicate<String, String> when, Fault fault, int times) {
    this.rule = new Rule(when, fault, new AtomicInteger(times));
    return this;
  }

  DynamoFront returnItemOnConditionFailure(boolean on) {
    this.itemOnConditionFailure = on;
    return this;
  }

  /** How many requests it answered with a fault. */
  int faultCount() {
    return faults.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
      String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
      String request = new String(body, StandardCharsets.UTF_8);
      Rule r = rule;
      if (r.when().test(operation, request) && r.left().getAndDecrement() > 0) {
        faults.incrementAndGet();
        if (r.fault() == Fault.INTERNAL_ERROR_AFTER_FORWARDING) {
          forward(target, ex.getRequestHeaders(), body);
        }
        if (r.fault() == Fault.STALLED) {
          try {
            closing.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        respond(ex, r.fault().status, r.fault().body);
        return;
      }
      Answer a = forward(target, ex.getRequestHeaders(), body);
      if (itemOnConditionFailure
          && a.status == 400
          && a.body.contains("ConditionalCheckFailedException")
          && request.contains("\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"")) {
        Matcher table = TABLE.matcher(request);
        Matcher key = KEY.matcher(request);
        if (table.find() && key.find()) {
          String get =
              "{\"TableName\":\""
                  + table.group(1)
                  + "\",\"Key\":"
                  + key.group(1)
                  + ",\"ConsistentRead\":true}";
          Answer item =
              forward(
                  "DynamoDB_20120810.GetItem",
                  ex.getRequestHeaders(),
                  get.getBytes(StandardCharsets.UTF_8));
          String found = item.body.trim();
          if (found.startsWith("{\"Item\":")) {
            a =
                new Answer(
                    400,
                    a.body.substring(0, a.body.lastIndexOf('}'))
                        + ","
                        + found.substring(1, found.length() - 1)
                        + "}");
          }
        }
      }
      respond(ex, a.status, a.body);
    }
  }

  private record Answer(int status, String body) {}

  private Answer forward(String target, Map<String, List<String>> headers, byte[] body)
      throws IOException {
    HttpURLConnection c = (HttpURLConnection) upstream.toURL().openConnection();
    c.setConnectTimeout(2000);
    c.setReadTimeout(5000);
    c.setRequestMethod("POST");
    c.setDoOutput(true);
    for (String h : List.of("Content-Type", "Authorization", "X-Amz-Date")) {
      List<String> v = headers.get(h);
      if (v != null && !v.isEmpty()) {
        c.setRequestProperty(h, v.get(0));
      }
    }
    c.setRequestProperty("X-Amz-Target", target);
    try (OutputStream out = c.getOutputStream()) {
      out.write(body);
    }
    int status = c.getResponseCode();
    try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
      return new Answer(
          status, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } finally {
      c.disconnect();
    }
  }

  private static void respond(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() throws InterruptedException {
    closing.countDown();
    server.stop(0);
    threads.shutdownNow();
    if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
      throw new IllegalStateException("DynamoFront's threads were still running 5 s after close");
    }
  }
}
