package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code bodyRedactor} that throws runs after the application: the first caller still gets the
 * application's response, and a retry replays the not-stored marker instead of running it again.
 */
class RedactorFailureTest {
  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aThrowingRedactorNeitherLosesTheResponseNorRunsTheApplicationTwice() throws Exception {
    AtomicInteger charges = new AtomicInteger();
    Downstream charging =
        (body, execution) -> {
          charges.incrementAndGet();
          return StoredResponse.ofUtf8(201, "not json");
        };
    try (IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryKeyStore()).build()) {
      IdempotencyHttp http =
          IdempotencyHttp.builder(engine)
              .bodyRedactor(
                  response -> {
                    throw new IllegalArgumentException("not JSON");
                  })
              .build();

      HttpResult.Respond first =
          (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging);
      HttpResult.Respond retry =
          (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging);

      assertThat(first.response().status()).isEqualTo(201);
      assertThat(first.response().bodyAsUtf8()).isEqualTo("not json");
      assertThat(retry.response().status()).isEqualTo(500);
      assertThat(retry.response().bodyAsUtf8()).contains("idempotency_response_not_stored");
      assertThat(charges).as("the application ran once").hasValue(1);
    }
  }
}
