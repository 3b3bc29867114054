package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotencyEvent.LeaseLost#afterWork()} tells a loss found once the work had returned (its
 * effects stand and the new owner runs it again: a duplicate risk) from one found while it ran.
 */
class LeaseLostEventTest {
  private static final RecordId ID = RecordId.of("acct-1", "order-7");
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  // heartbeats far apart in real time: only the owner's own writes meet the takeover
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .clock(clock)
                  .heartbeatInterval(Duration.ofSeconds(29))
                  .listener(events::add)
                  .build())
          .build();

  @AfterEach
  void close() {
    engine.close();
  }

  /** Another instance takes the record over, its lease having expired by that instance's clock. */
  private void takeOverFromAnotherInstance() {
    ClaimOutcome takeover =
        store.claim(
            new ClaimRequest(
                ID,
                FP,
                clock.instant().plusSeconds(31),
                Duration.ofSeconds(30),
                Duration.ofDays(1)));
    assertThat(takeover)
        .isInstanceOfSatisfying(ClaimOutcome.Claimed.class, c -> assertThat(c.takeover()).isTrue());
  }

  private List<IdempotencyEvent.LeaseLost> leaseLost() {
    return events.stream()
        .filter(IdempotencyEvent.LeaseLost.class::isInstance)
        .map(IdempotencyEvent.LeaseLost.class::cast)
        .toList();
  }

  @Test
  void aCompletionRefusedAfterTheWorkReturnedIsALossAfterTheWork() {
    assertThatThrownBy(
            () ->
                engine.execute(
                    ID,
                    FP,
                    Work.stepped(
                        execution -> {
                          takeOverFromAnotherInstance();
                          return StoredResponse.ofUtf8(201, "charged");
                        })))
        .isInstanceOf(LeaseLostException.class);

    assertThat(leaseLost()).singleElement().extracting(e -> e.afterWork()).isEqualTo(true);
  }

  @Test
  void aCheckpointRefusedWhileTheWorkRunsIsNotALossAfterTheWork() {
    assertThatThrownBy(
            () ->
                engine.execute(
                    ID,
                    FP,
                    Work.stepped(
                        execution -> {
                          takeOverFromAnotherInstance();
                          execution.checkpoint(RecoveryPoint.of("charged"));
                          return StoredResponse.ofUtf8(201, "charged");
                        })))
        .isInstanceOf(LeaseLostException.class);

    assertThat(leaseLost()).singleElement().extracting(e -> e.afterWork()).isEqualTo(false);
  }
}
