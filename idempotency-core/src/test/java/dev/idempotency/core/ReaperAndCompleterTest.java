package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReaperAndCompleterTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(store)
          .clock(clock)
          .heartbeatInterval(Duration.ofSeconds(29))
          .build();

  @AfterEach
  void close() {
    engine.close();
  }

  /** The reaper deletes in bounded batches, only past retention, and keeps memory bounded. */
  @Test
  void reaperDeletesPastRetentionInBoundedBatches() throws Exception {
    for (int i = 0; i < 5; i++) {
      engine.execute(RecordId.of("s", "old-" + i), FP, e -> StoredResponse.ofUtf8(200, "ok"));
    }
    clock.advance(Duration.ofHours(71));
    engine.execute(RecordId.of("s", "young"), FP, e -> StoredResponse.ofUtf8(200, "ok"));
    clock.advance(Duration.ofHours(1));

    Reaper.Report first = new Reaper(store, engine.config(), 2, 2).runOnce();
    assertThat(first.deleted()).isEqualTo(4);
    assertThat(first.batches()).isEqualTo(2);
    assertThat(first.more()).isTrue();
    Reaper.Report second = new Reaper(store, engine.config(), 2, 2).runOnce();
    assertThat(second.deleted()).isEqualTo(1);
    assertThat(second.more()).isFalse();
    assertThat(store.size()).isEqualTo(1);
    assertThat(store.lookup(RecordId.of("s", "young"))).isPresent();
  }

  @Test
  void reaperReportsAbandonedInFlightRecordsItDeletes() throws Exception {
    RecordId stuck = RecordId.of("s", "stuck");
    catchThrowableOfType(
        OperationFailedException.class,
        () ->
            engine.execute(
                stuck,
                FP,
                e -> {
                  e.checkpoint(RecoveryPoint.of("charged"));
                  throw new IllegalStateException("crash");
                }));
    clock.advance(Duration.ofHours(73));
    Reaper.Report report = new Reaper(store, engine.config(), 10, 1).runOnce();
    assertThat(report.unfinished())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.id()).isEqualTo(stuck);
              assertThat(s.recoveryPoint()).map(RecoveryPoint::name).contains("charged");
            });
    assertThat(report.deleted()).isEqualTo(1);
  }

  /** The completer takes over an abandoned request and finishes it from its recovery point. */
  @Test
  void completerFinishesAbandonedRequestsFromTheirRecoveryPoint() throws Exception {
    RecordId id = RecordId.of("s", "abandoned");
    AtomicInteger charges = new AtomicInteger();
    Operation op =
        e -> {
          if (e.resumeFrom().isEmpty()) {
            charges.incrementAndGet();
            e.checkpoint(RecoveryPoint.of("charged"));
            throw new IllegalStateException("process died after the charge");
          }
          return StoredResponse.ofUtf8(201, "receipt");
        };
    catchThrowableOfType(OperationFailedException.class, () -> engine.execute(id, FP, op));

    Completer completer = new Completer(engine, record -> Optional.of(op));
    assertThat(completer.runOnce(10).found())
        .as("lease still live: nothing abandoned yet")
        .isZero();
    clock.advance(Duration.ofSeconds(31));
    Completer.Report report = completer.runOnce(10);

    assertThat(report.completed()).isEqualTo(1);
    assertThat(charges).hasValue(1);
    assertThat(engine.execute(id, FP, op))
        .isInstanceOfSatisfying(
            Outcome.Replayed.class,
            r -> assertThat(r.response().bodyAsUtf8()).isEqualTo("receipt"));
  }
}
