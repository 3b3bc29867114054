package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code Execution.downstreamKey}: the same for every owner of one request (a takeover resumes it),
 * different for a new request under a reused key (past the window, or after a release), so a
 * payment provider that deduplicates by it never answers a new request with an old charge.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DownstreamKeyTest {
  private static final RecordId ID = RecordId.of("acct", "pay-1");
  private static final Fingerprint FP =
      Fingerprint.of("POST /payments {1}".getBytes(StandardCharsets.UTF_8));

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final List<IdempotencyKey> keys = new ArrayList<>();

  private Outcome run(IdempotencyEngine engine) throws Exception {
    return engine.execute(
        ID,
        FP,
        Work.stepped(
            execution -> {
              keys.add(execution.downstreamKey("charge"));
              return StoredResponse.ofUtf8(201, "charged");
            }));
  }

  @Test
  void aTakeoverKeepsTheKeyAndANewRequestUnderTheSameKeyGetsANewOne() throws Exception {
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .replayWindow(Duration.ofHours(1))
                    .retention(Duration.ofHours(2))
                    .heartbeatInterval(Duration.ofSeconds(29))
                    .build())
            .build()) {
      // the first owner claims and stalls; its lease runs out and a retry takes it over
      ClaimOutcome.Claimed first =
          (ClaimOutcome.Claimed)
              store.claim(
                  new ClaimRequest(
                      ID,
                      FP,
                      clock.instant(),
                      engine.config().lease(),
                      engine.config().replayWindow()));
      clock.advance(engine.config().lease());
      assertThat(run(engine))
          .isInstanceOfSatisfying(
              Outcome.Executed.class, e -> assertThat(e.fence()).isNotEqualTo(first.fence()));
      // the key is reused once the window has passed: a new request by the contract
      clock.advance(Duration.ofHours(1));
      assertThat(run(engine)).isInstanceOf(Outcome.Executed.class);
    }
    IdempotencyKey takeover = keys.get(0);
    IdempotencyKey reused = keys.get(1);
    assertThat(reused)
        .as(
            "the downstream key of a new request under a reused key (a provider that deduplicates"
                + " by it would answer with the earlier request's charge)")
        .isNotEqualTo(takeover);
    assertThat(store.lookup(ID)).isPresent();
  }

  @Test
  void everyOwnerOfOneRequestDerivesTheSameKey() throws Exception {
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .heartbeatInterval(Duration.ofSeconds(29))
                    .build())
            .build()) {
      ClaimOutcome.Claimed first =
          (ClaimOutcome.Claimed)
              store.claim(
                  new ClaimRequest(
                      ID,
                      FP,
                      clock.instant(),
                      engine.config().lease(),
                      engine.config().replayWindow()));
      IdempotencyKey firstOwner =
          new dev.idempotency.core.internal.ExecutionImpl(
                  store, ID, first, clock, engine.config().lease(), clock.instant(), null)
              .downstreamKey("charge");
      clock.advance(engine.config().lease());
      assertThat(run(engine)).isInstanceOf(Outcome.Executed.class);
      assertThat(keys)
          .as("the downstream key of the owner that took the request over")
          .containsExactly(firstOwner);
    }
  }
}
