package dev.idempotency.client.resilience4j;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * The Resilience4j code of docs/client-retries.md, compiled here, where Resilience4j is on the
 * class path; the examples module's DocSnippetsTest holds the page's block equal to the region.
 */
final class Resilience4jSnippets {
  private Resilience4jSnippets() {}

  static HttpResponse<?> resilience4j(HttpClient http) throws Exception {
    // tag::resilience4j[]
    IdempotentResilience<HttpResponse<?>> orders =
        IdempotentResilience.stack(
            RetryPolicy.ofDefaults(),
            ResponseReader.ofJdk(),
            CircuitBreaker.ofDefaults("orders"),
            RateLimiter.ofDefaults("orders"),
            Bulkhead.ofDefaults("orders"));
    URI uri = URI.create("https://api.example.com/orders/4711/confirm");
    HttpResponse<?> response =
        orders.call(
            "POST",
            uri,
            OperationKey.forEvent("order-confirm", "4711"),
            (key, timeout) ->
                http.send(
                    HttpRequest.newBuilder(uri)
                        .timeout(timeout)
                        .header("Idempotency-Key", key.value())
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString()));
    // end::resilience4j[]
    return response;
  }
}
