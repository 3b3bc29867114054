package dev.idempotency.client.functional;

import com.sun.net.httpserver.HttpExchange;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.client.http.ScriptedServer;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.Outcome;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real server-side dedupe behind the scripted test server: every keyed request goes through the library's own
 * {@link IdempotencyEngine} over an {@link InMemoryKeyStore}, and is answered by the DESIGN.md contract (replay with
 * {@code Idempotent-Replayed: true}, 409 {@code idempotency_request_in_flight} with Retry-After, 409
 * {@code idempotency_key_reused}, 503 {@code idempotency_store_unavailable}). A stand-in for the servlet filter
 * (issue 4) until it exists; then these tests should also run through the filter in embedded Jetty.
 */
final class EngineBackedServer implements AutoCloseable {
  private final IdempotencyEngine engine;
  private final AtomicInteger sideEffects = new AtomicInteger();
  private final long operationMillis;

  EngineBackedServer(Duration lease, long operationMillis) {
    this.engine = IdempotencyEngine.builder(new InMemoryKeyStore()).lease(lease).build();
    this.operationMillis = operationMillis;
  }

  /** @return how many times the operation (the side effect) actually ran */
  int sideEffects() {
    return sideEffects.get();
  }

  /** Processes the request through the engine, then closes the connection without answering: the response is lost. */
  ScriptedServer.Behaviour processThenDrop() {
    return (exchange, request) -> {
      process(request);
      exchange.close();
    };
  }

  /** Processes the request, then sends half a response and closes the connection. */
  ScriptedServer.Behaviour processThenAbort() {
    return (exchange, request) -> {
      process(request);
      exchange.sendResponseHeaders(201, 1000);
      OutputStream out = exchange.getResponseBody();
      out.write("{\"order\":".getBytes(StandardCharsets.UTF_8));
      out.flush();
      exchange.close();
    };
  }

  /** Processes the request and answers by the contract. */
  ScriptedServer.Behaviour processAndRespond() {
    return (exchange, request) -> respond(exchange, process(request));
  }

  private Outcome process(ScriptedServer.Received request) throws Exception {
    String key = request.idempotencyKey();
    if (key == null) {
      throw new IllegalStateException("these tests always send a key");
    }
    byte[] digest = sha256(request.method() + " " + request.path() + "\n" + request.bodyText());
    return engine.execute(RecordId.of("tenant-1", key), Fingerprint.of(digest), execution -> {
      int n = sideEffects.incrementAndGet();
      if (operationMillis > 0) {
        Thread.sleep(operationMillis);
      }
      return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
          ("{\"order\":" + n + "}").getBytes(StandardCharsets.UTF_8));
    });
  }

  private static void respond(HttpExchange exchange, Outcome outcome) throws IOException {
    if (outcome instanceof Outcome.Executed executed) {
      send(exchange, executed.response(), false);
    } else if (outcome instanceof Outcome.Replayed replayed) {
      send(exchange, replayed.response(), true);
    } else if (outcome instanceof Outcome.InFlightConflict conflict) {
      long seconds = Math.max(1, (conflict.retryAfter().toMillis() + 999) / 1000);
      exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
      problem(exchange, 409, "idempotency_request_in_flight", true);
    } else if (outcome instanceof Outcome.Mismatch) {
      problem(exchange, 409, "idempotency_key_reused", false);
    } else {
      exchange.getResponseHeaders().set("Retry-After", "1");
      problem(exchange, 503, "idempotency_store_unavailable", true);
    }
  }

  private static void send(HttpExchange exchange, StoredResponse response, boolean replayed) throws IOException {
    response.headers().forEach((name, values) -> exchange.getResponseHeaders().put(name, values));
    if (replayed) {
      exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
    }
    byte[] body = response.body();
    exchange.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static void problem(HttpExchange exchange, int status, String code, boolean retryable) throws IOException {
    byte[] body = ("{\"type\":\"https://idempotency.dev/problems/" + code + "\",\"title\":\"" + code + "\",\"status\":"
        + status + ",\"detail\":\"see code\",\"code\":\"" + code + "\",\"retryable\":" + retryable + "}")
        .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/problem+json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    engine.close();
  }
}
