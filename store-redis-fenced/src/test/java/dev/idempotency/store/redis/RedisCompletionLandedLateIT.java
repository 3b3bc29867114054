package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.testing.DelegatingStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A completion that timed out on a frozen server had been written all the same, and runs when the
 * server wakes; the engine's next attempt, under the same fence, then finds the record {@code
 * COMPLETE} and is refused. The owner whose response is stored is told so ({@code Executed},
 * stored), not that another owner took its key over. The frozen outage gates meet this for every
 * owner ({@code RedisCompletionOutageIT}, {@code DynamoDbCompletionOutageIT}). The scripts must be
 * cached first: an {@code EVALSHA} the server does not know yet answers {@code NOSCRIPT} when it
 * wakes, and changes nothing.
 */
class RedisCompletionLandedLateIT {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {9});

  @Test
  void anOwnerWhoseTimedOutCompletionRanWhenTheServerWokeIsToldItsResponseWasStored(
      @TempDir Path dir) throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start(dir)) {
      RedisClient client = RedisClient.create(server.uri());
      try (StatefulRedisConnection<byte[], byte[]> connection =
          client.connect(ByteArrayCodec.INSTANCE)) {
        RedisKeyStore store =
            RedisKeyStore.builder(connection).commandTimeout(Duration.ofMillis(500)).build();
        AtomicInteger attempts = new AtomicInteger();
        DelegatingStore thawedAtTheSecondAttempt =
            new DelegatingStore(store) {
              @Override
              public void complete(
                  RecordId id, FenceToken fence, StoredResponse response, Instant now) {
                if (attempts.incrementAndGet() == 2) {
                  // the first attempt timed out on the wire: it runs first once the server wakes
                  try {
                    server.thaw();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }
                super.complete(id, fence, response, now);
              }
            };
        RecordId id = RecordId.of("tenant", "landed-late");
        try (IdempotencyEngine engine =
            IdempotencyEngine.builder(thawedAtTheSecondAttempt)
                .config(
                    IdempotencyConfig.builder()
                        .lease(Duration.ofSeconds(15))
                        .heartbeatInterval(Duration.ofSeconds(3))
                        .build())
                .build()) {
          // the scripts are cached: a completion sent to the frozen server is one that can run
          engine.execute(
              RecordId.of("tenant", "warm-up"),
              FP,
              Work.stepped(e -> StoredResponse.ofUtf8(201, "")));
          attempts.set(0);
          Outcome outcome =
              engine.execute(
                  id,
                  FP,
                  Work.stepped(
                      execution -> {
                        server.freeze();
                        return StoredResponse.ofUtf8(201, "charged");
                      }));

          assertThat(attempts).as("the first attempt timed out").hasValueGreaterThan(1);
          assertThat(store.lookup(id))
              .get()
              .extracting(r -> r.state())
              .isEqualTo(KeyState.COMPLETE);
          assertThat(outcome).isInstanceOf(Outcome.Executed.class);
          assertThat(((Outcome.Executed) outcome).stored())
              .as("the owner's own response is stored")
              .isTrue();
        }
      } finally {
        client.shutdown();
      }
    }
  }
}
