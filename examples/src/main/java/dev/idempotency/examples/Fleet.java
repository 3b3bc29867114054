package dev.idempotency.examples;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEvent;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.http.IdempotentResponse;
import dev.idempotency.client.http.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The demo's clients: each pays {@code paymentsPerClient} times, one payment after the other,
 * through the fault-injecting proxy.
 *
 * <p>With the library on, each client is a {@link RetryingHttpClient} and each payment carries an
 * event-derived key, {@code payment-<paymentId>}, minted once and reused on every attempt. With the
 * library off, the client runs the loop people write by hand: the same attempts and backoff, but a
 * fresh key on every attempt (or none).
 */
final class Fleet {
  /** Attempts per payment, on or off: the same budget of tries, so only the keys differ. */
  static final int MAX_ATTEMPTS = 6;

  private Fleet() {}

  static RunStats run(URI api, DemoOptions options, boolean libraryOn, String label)
      throws Exception {
    RunStats stats = new RunStats();
    long total = (long) options.clients() * options.paymentsPerClient();
    ExecutorService pool = Executors.newFixedThreadPool(options.clients());
    Progress progress = Progress.start(label, stats, total);
    try {
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < options.clients(); c++) {
        int client = c;
        clients.add(
            pool.submit(
                () -> {
                  HttpClient http =
                      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
                  if (libraryOn) {
                    payWithLibrary(api, client, options, http, stats);
                  } else {
                    payByHand(api, client, options, http, stats);
                  }
                  return null;
                }));
      }
      for (Future<?> f : clients) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      progress.stop();
    }
    return stats;
  }

  private static void payWithLibrary(
      URI api, int client, DemoOptions options, HttpClient http, RunStats stats)
      throws InterruptedException {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(MAX_ATTEMPTS)
            .deadline(Duration.ofSeconds(30))
            .attemptTimeout(Duration.ofSeconds(5))
            .listener(
                event -> {
                  if (event instanceof RetryEvent.RetryScheduled scheduled) {
                    stats.retried(scheduled.cause());
                  }
                })
            .build();
    RetryingHttpClient retrying = RetryingHttpClient.builder(http).policy(policy).build();
    for (int n = 0; n < options.paymentsPerClient(); n++) {
      String paymentId = "pay-" + client + "-" + n;
      long start = System.nanoTime();
      stats.payments.increment();
      try {
        IdempotentResponse<String> response =
            retrying
                .call(request(api, client, paymentId))
                .idempotencyKey(OperationKey.forEvent("payment", paymentId))
                .send(HttpResponse.BodyHandlers.ofString());
        stats.clientAttempts.add(response.attempts());
        if (response.replayed()) {
          stats.replays.increment();
        }
        if (response.statusCode() / 100 == 2) {
          stats.succeeded.increment();
        } else {
          stats.failed("HTTP " + response.statusCode());
        }
      } catch (RetriesExhaustedException e) {
        stats.clientAttempts.add(e.attempts());
        stats.failed("gave up: " + e.reason());
      } catch (IOException e) {
        stats.clientAttempts.increment();
        stats.failed("not retried: " + RunStats.category(e.toString()));
      }
      stats.latency((System.nanoTime() - start) / 1000);
      stats.done.incrementAndGet();
    }
  }

  /** The hand-written loop: same attempts and backoff, but a new key per attempt (or no key). */
  private static void payByHand(
      URI api, int client, DemoOptions options, HttpClient http, RunStats stats)
      throws InterruptedException {
    for (int n = 0; n < options.paymentsPerClient(); n++) {
      String paymentId = "pay-" + client + "-" + n;
      long start = System.nanoTime();
      stats.payments.increment();
      String outcome = null;
      for (int attempt = 0; attempt < MAX_ATTEMPTS && outcome == null; attempt++) {
        if (attempt > 0) {
          Thread.sleep(
              ThreadLocalRandom.current().nextLong(1 + Math.min(20_000, 500L << (attempt - 1))));
        }
        HttpRequest.Builder request =
            HttpRequest.newBuilder(request(api, client, paymentId), (k, v) -> true)
                .timeout(Duration.ofSeconds(5));
        if (options.offMode() == DemoOptions.OffMode.FRESH_KEY) {
          request.setHeader("Idempotency-Key", UUID.randomUUID().toString()); // the anti-pattern
        }
        stats.clientAttempts.increment();
        try {
          HttpResponse<String> response =
              http.send(request.build(), HttpResponse.BodyHandlers.ofString());
          int status = response.statusCode();
          if (status == 429 || status == 502 || status == 503 || status == 504) {
            stats.retried("HTTP " + status);
            continue;
          }
          outcome = status / 100 == 2 ? "ok" : "HTTP " + status;
        } catch (IOException e) {
          stats.retried(RunStats.category(e.toString()));
        }
      }
      if ("ok".equals(outcome)) {
        stats.succeeded.increment();
      } else {
        stats.failed(outcome == null ? "gave up: ATTEMPTS" : outcome);
      }
      stats.latency((System.nanoTime() - start) / 1000);
      stats.done.incrementAndGet();
    }
  }

  private static HttpRequest request(URI api, int client, String paymentId) {
    String body =
        "{\"paymentId\":\""
            + paymentId
            + "\",\"amountCents\":"
            + (1000 + paymentId.hashCode() % 900)
            + ",\"currency\":\"EUR\"}";
    return HttpRequest.newBuilder(api.resolve("/payments"))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer merchant-" + (client % 5))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  /** Prints how far the run is, once a second, on one line. */
  static final class Progress {
    private final Thread thread;

    private Progress(Thread thread) {
      this.thread = thread;
    }

    static Progress start(String label, RunStats stats, long total) {
      long t0 = System.nanoTime();
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(1000);
                    System.err.printf(
                        "  %s: %d/%d payments, %d retries, %.0f s%n",
                        label,
                        stats.done.get(),
                        total,
                        stats.retries(),
                        (System.nanoTime() - t0) / 1e9);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "progress");
      t.setDaemon(true);
      t.start();
      return new Progress(t);
    }

    void stop() {
      thread.interrupt();
    }
  }
}
