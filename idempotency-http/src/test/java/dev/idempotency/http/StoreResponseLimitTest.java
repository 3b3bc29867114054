package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.testing.DelegatingStore;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP binding and the store's own limit ({@code KeyStore.maxResponseBytes()}): a configured
 * limit above it is refused when built, naming both; the default follows a smaller store; and a
 * response the store refuses after the handler ran is answered, and replayed, as not stored, never
 * run again.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StoreResponseLimitTest {
  private static final long STORE_LIMIT = 400_000;

  private final DelegatingStore limited =
      new DelegatingStore(new InMemoryKeyStore()) {
        @Override
        public long maxResponseBytes() {
          return STORE_LIMIT;
        }

        @Override
        public String toString() {
          return "LimitedStore";
        }
      };

  @Test
  void aConfiguredLimitAboveTheStoresIsRefusedNamingBoth() {
    try (IdempotencyEngine engine = IdempotencyEngine.builder(limited).build()) {
      assertThatThrownBy(
              () -> IdempotencyHttp.builder(engine).maxStoredResponseBytes(1 << 20).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxStoredResponseBytes is 1048576")
          .hasMessageContaining("LimitedStore keeps responses of at most 400000 bytes")
          .hasMessageContaining("maxResponseBytes()");
    }
  }

  @Test
  void theDefaultLimitFollowsASmallerStore() {
    try (IdempotencyEngine engine = IdempotencyEngine.builder(limited).build()) {
      assertThat(IdempotencyHttp.builder(engine).build().maxStoredResponseBytes())
          .isEqualTo(STORE_LIMIT);
      assertThat(
              IdempotencyHttp.builder(engine)
                  .maxStoredResponseBytes(100_000)
                  .build()
                  .maxStoredResponseBytes())
          .isEqualTo(100_000);
    }
  }

  /**
   * A response the store refuses when the handler has run (a packet too large for the server, say):
   * the caller gets the handler's answer, and a retry gets the not-stored problem, replayed,
   * without running the handler again.
   */
  @Test
  void aResponseTheStoreRefusesIsAnsweredThenReplayedAsNotStored() throws Exception {
    DelegatingStore refusing =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            if (r.notStoredReason().isEmpty()) {
              throw new KeyStoreException("Packet for query is too large");
            }
            super.complete(id, fence, r, now);
          }
        };
    AtomicInteger charges = new AtomicInteger();
    Downstream charge =
        (body, execution) -> {
          charges.incrementAndGet();
          return StoredResponse.ofUtf8(201, "{\"charge\":\"ch_1\"}");
        };
    try (IdempotencyEngine engine = IdempotencyEngine.builder(refusing).build()) {
      IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
      HttpResult.Respond first =
          (HttpResult.Respond) http.handle(FakeRequest.post("/charges", "k", "x"), charge);
      HttpResult.Respond retry =
          (HttpResult.Respond) http.handle(FakeRequest.post("/charges", "k", "x"), charge);

      assertThat(first.response().status()).isEqualTo(201);
      assertThat(retry.disposition()).isEqualTo(HttpResult.Disposition.REPLAYED);
      assertThat(retry.response().status()).isEqualTo(500);
      assertThat(retry.response().firstHeader(IdempotencyHttp.REPLAYED_HEADER)).contains("true");
      assertThat(retry.response().bodyAsUtf8())
          .contains("\"code\":\"idempotency_response_not_stored\"")
          .contains("status 201")
          .contains("Packet for query is too large");
      assertThat(charges).as("the handler ran once").hasValue(1);
    }
  }
}
