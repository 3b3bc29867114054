package dev.idempotency.client.okhttp;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import java.io.IOException;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The OkHttp code of docs/client-retries.md, compiled here, where OkHttp is on the class path; the
 * examples module's DocSnippetsTest holds the page's block equal to the region.
 */
final class OkHttpSnippets {
  private OkHttpSnippets() {}

  static void okhttp() throws IOException {
    // tag::okhttp[]
    OkHttpClient http =
        new OkHttpClient.Builder()
            .addInterceptor(
                IdempotencyInterceptor.builder().policy(RetryPolicy.ofDefaults()).build())
            .build();
    Request confirm =
        new Request.Builder()
            .url("https://api.example.com/orders/4711/confirm")
            .post(RequestBody.create("{\"amount\":100}", MediaType.get("application/json")))
            .tag(
                OperationKey.class,
                OperationKey.forEvent("order-confirm", "4711")) // optional: else minted once
            .build();
    try (Response response = http.newCall(confirm).execute()) {
      boolean replay = "true".equals(response.header("Idempotent-Replayed"));
      String body = response.body().string(); // already in memory: read within the attempt
    } // a retryable failure that runs out of attempts, time or budget: RetriesExhaustedException
    // end::okhttp[]
  }
}
