package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.StoredResponsePolicy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An oversized response under the engine's stored-response policy: the policy judges the
 * application's status, never the not-stored marker's 500, so a side effect that happened is not
 * released for a retry to repeat.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class OversizedResponsePolicyTest {
  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .storedResponsePolicy(StoredResponsePolicy.storeAllExcept(500, 502, 503, 504))
                  .build())
          .build();
  private final AtomicInteger charges = new AtomicInteger();

  @AfterEach
  void close() {
    engine.close();
  }

  /**
   * A downstream that charges once per run and answers {@code status} with a body over the
   * 1024-byte limit.
   */
  private Downstream charging(int status) {
    return (body, execution) -> {
      charges.incrementAndGet();
      return StoredResponse.of(status, new byte[2000]);
    };
  }

  private IdempotencyHttp http(OversizedResponse mode) {
    return IdempotencyHttp.builder(engine)
        .maxStoredResponseBytes(1024)
        .oversizedResponse(mode)
        .build();
  }

  /**
   * An oversized 200 with the policy excluding 500: the marker is stored, and the retry does not
   * charge again.
   */
  @Test
  void oversizedSuccessIsStoredAsTheMarkerEvenWhenThePolicyExcludes500() throws Exception {
    IdempotencyHttp http = http(OversizedResponse.STORE_MARKER);
    HttpResult.Respond first =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging(200));
    HttpResult.Respond retry =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging(200));

    assertThat(first.response().status()).isEqualTo(200);
    assertThat(first.response().bodyLength()).isEqualTo(2000);
    assertThat(retry.disposition())
        .as(
            "the retry of an oversized 200 (check that the policy judged status 200,"
                + " not the marker's 500)")
        .isEqualTo(HttpResult.Disposition.REPLAYED);
    assertThat(retry.response().status()).isEqualTo(500);
    assertThat(retry.response().bodyAsUtf8())
        .contains("\"code\":\"idempotency_response_not_stored\"")
        .contains("status 200");
    assertThat(charges).as("charges: the side effect must not repeat").hasValue(1);
  }

  /**
   * An oversized response whose own status the policy excludes (a 503: "not processed, come back")
   * releases the key as a small one would: the policy's judgement of the application's status
   * stands.
   */
  @Test
  void oversizedResponseWithAnExcludedStatusReleasesTheKeyAsASmallOneWould() throws Exception {
    IdempotencyHttp http = http(OversizedResponse.STORE_MARKER);
    HttpResult.Respond first =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging(503));

    assertThat(first.response().status()).isEqualTo(503);
    assertThat(first.response().bodyLength()).isEqualTo(2000);
    assertThat(store.lookup(RecordId.of("alice", "k")))
        .as("the key of an excluded 503 is released")
        .isEmpty();
    HttpResult.Respond retry =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging(200));
    assertThat(retry.disposition()).isEqualTo(HttpResult.Disposition.EXECUTED);
    assertThat(charges).hasValue(2);
  }

  /**
   * RELEASE_KEY is the integrator's declaration that a repeat is harmless: it releases whatever the
   * status.
   */
  @Test
  void releaseKeyReleasesAnOversizedSuccess() throws Exception {
    IdempotencyHttp http = http(OversizedResponse.RELEASE_KEY);
    http.handle(FakeRequest.post("/a", "k", "x"), charging(200));
    assertThat(store.lookup(RecordId.of("alice", "k"))).isEmpty();
    http.handle(FakeRequest.post("/a", "k", "x"), charging(200));
    assertThat(charges).hasValue(2);
    assertThat(store.lookup(RecordId.of("alice", "k"))).isEmpty();
  }

  /**
   * With the default policy (store every response) the marker is stored and replayed, as before.
   */
  @Test
  void defaultPolicyStoresTheMarker() throws Exception {
    try (IdempotencyEngine storeAll = IdempotencyEngine.builder(new InMemoryKeyStore()).build()) {
      IdempotencyHttp http = IdempotencyHttp.builder(storeAll).maxStoredResponseBytes(1024).build();
      http.handle(FakeRequest.post("/a", "k", "x"), charging(201));
      HttpResult.Respond retry =
          (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), charging(201));
      assertThat(retry.response().status()).isEqualTo(500);
      assertThat(storeAll.store().lookup(RecordId.of("alice", "k")).orElseThrow().state())
          .isEqualTo(KeyState.COMPLETE);
      assertThat(charges).hasValue(1);
    }
  }
}
