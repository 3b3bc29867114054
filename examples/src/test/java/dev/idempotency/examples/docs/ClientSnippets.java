package dev.idempotency.examples.docs;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.Sleeper;
import dev.idempotency.client.Ticker;
import dev.idempotency.client.http.IdempotentResponse;
import dev.idempotency.client.http.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** The code of the README's client and of docs/client-retries.md on the JDK's client, compiled. */
final class ClientSnippets {
  private ClientSnippets() {}

  static IdempotentResponse<String> clientInFiveLines() throws IOException, InterruptedException {
    // tag::client-in-five-lines[]
    RetryingHttpClient client =
        RetryingHttpClient.create(
            HttpClient.newHttpClient()); // 3 attempts, full jitter, 30 s deadline, budget
    HttpRequest pay =
        HttpRequest.newBuilder(URI.create("https://api.example.com/payments"))
            .POST(
                HttpRequest.BodyPublishers.ofString("{\"orderId\":\"4711\",\"amountCents\":4200}"))
            .build();
    IdempotentResponse<String> response =
        client
            .call(pay)
            .idempotencyKey(OperationKey.forEvent("order-confirm", "4711"))
            .send(HttpResponse.BodyHandlers.ofString());
    // end::client-in-five-lines[]
    return response;
  }

  static boolean jdkClient() throws IOException, InterruptedException {
    // tag::jdk-client[]
    RetryingHttpClient client = RetryingHttpClient.create(HttpClient.newHttpClient());
    HttpRequest confirm =
        HttpRequest.newBuilder(URI.create("https://api.example.com/orders/4711/confirm"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
            .build();
    IdempotentResponse<String> response =
        client
            .call(confirm)
            .idempotencyKey(OperationKey.forEvent("order-confirm", "4711"))
            .send(HttpResponse.BodyHandlers.ofString());
    boolean replay =
        response
            .replayed(); // true if the server sent its stored result (Idempotent-Replayed: true)
    // end::jdk-client[]
    return replay;
  }

  /** A hand-moved time for tests: the ticker, the clock and the sleeper in one. */
  static final class FakeTime implements Ticker, InstantSource, Sleeper {
    private long nanos;

    @Override
    public long nanoTime() {
      return nanos;
    }

    @Override
    public Instant instant() {
      return Instant.EPOCH.plusNanos(nanos);
    }

    @Override
    public void sleep(Duration duration) {
      nanos += duration.toNanos();
    }
  }

  static RetryPolicy fakeEnvironment(FakeTime fakeTime) {
    // tag::fake-environment[]
    RetryEnvironment fake =
        RetryEnvironment.system()
            .withTicker(fakeTime)
            .withClock(fakeTime)
            .withSleeper(fakeTime)
            .withRandom(() -> 0.5);
    RetryPolicy policy = RetryPolicy.builder().environment(fake).build();
    // end::fake-environment[]
    return policy;
  }
}
