package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
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
          .config(
              IdempotencyConfig.builder()
                  .clock(clock)
                  .heartbeatInterval(Duration.ofSeconds(29))
                  .build())
          .build();

  @AfterEach
  void close() {
    engine.close();
  }

  /** The reaper deletes in bounded batches, only past retention, and keeps memory bounded. */
  @Test
  void reaperDeletesPastRetentionInBoundedBatches() throws Exception {
    for (int i = 0; i < 5; i++) {
      engine.execute(
          RecordId.of("s", "old-" + i), FP, Work.stepped(e -> StoredResponse.ofUtf8(200, "ok")));
    }
    clock.advance(Duration.ofHours(71));
    engine.execute(
        RecordId.of("s", "young"), FP, Work.stepped(e -> StoredResponse.ofUtf8(200, "ok")));
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
                Work.stepped(
                    e -> {
                      e.checkpoint(RecoveryPoint.of("charged"));
                      throw new IllegalStateException("crash");
                    })));
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
    catchThrowableOfType(
        OperationFailedException.class, () -> engine.execute(id, FP, Work.stepped(op)));

    Completer completer = new Completer(engine, record -> Optional.of(op));
    assertThat(completer.runOnce(10).found())
        .as("lease still live: nothing abandoned yet")
        .isZero();
    clock.advance(Duration.ofSeconds(31));
    Completer.Report report = completer.runOnce(10);

    assertThat(report.completed()).isEqualTo(1);
    assertThat(charges).hasValue(1);
    assertThat(engine.execute(id, FP, Work.stepped(op)))
        .isInstanceOfSatisfying(
            Outcome.Replayed.class,
            r -> assertThat(r.response().bodyAsUtf8()).isEqualTo("receipt"));
  }

  /**
   * A record released after the completer listed it (a retry took it over, failed and released it)
   * is not claimed afresh and run as a request nobody sent: the resumer's operation does not run,
   * and the key is left absent.
   */
  @Test
  void completerDoesNotRunAKeyReleasedAfterItWasListed() throws Exception {
    RecordId id = RecordId.of("s", "released-meanwhile");
    ClaimOutcome.Claimed first = claim(id);
    clock.advance(Duration.ofSeconds(31));
    AtomicInteger runs = new AtomicInteger();
    Completer completer =
        new Completer(
            engine,
            listed -> {
              // between the listing and the completer's claim: a retry takes over, fails, releases
              ClaimOutcome.Claimed retry = claim(id);
              store.release(id, retry.fence(), clock.instant());
              return Optional.of(
                  e -> {
                    runs.incrementAndGet();
                    return StoredResponse.ofUtf8(201, "charged by nobody's request");
                  });
            });

    Completer.Report report = completer.runOnce(10);

    assertThat(first.takeover()).isFalse();
    assertThat(runs).as("the resumer's operation runs").hasValue(0);
    assertThat(report.skipped()).isEqualTo(1);
    assertThat(store.lookup(id)).as("the completer's fresh claim is given back").isEmpty();
  }

  /**
   * A record that, after the listing, became another request's (released, claimed afresh, abandoned
   * again) is handed back with its lease ended, not resumed with the resumer chosen for the listed
   * one.
   */
  @Test
  void completerHandsBackAnotherRequestsRecordUnrun() throws Exception {
    RecordId id = RecordId.of("s", "another-request");
    claim(id);
    clock.advance(Duration.ofSeconds(31));
    AtomicInteger runs = new AtomicInteger();
    Completer completer =
        new Completer(
            engine,
            listed -> {
              ClaimOutcome.Claimed retry = claim(id);
              store.release(id, retry.fence(), clock.instant());
              claim(id); // a new request under the same key, abandoned in turn
              clock.advance(Duration.ofSeconds(31));
              return Optional.of(
                  e -> {
                    runs.incrementAndGet();
                    return StoredResponse.ofUtf8(201, "resumed the wrong request");
                  });
            });

    completer.runOnce(10);

    assertThat(runs).hasValue(0);
    assertThat(store.findAbandoned(clock.instant().plusMillis(1), 10))
        .as("abandoned again at once, for a completer that knows that request")
        .extracting(RecordSnapshot::id)
        .containsExactly(id);
  }

  private ClaimOutcome.Claimed claim(RecordId id) {
    return (ClaimOutcome.Claimed)
        store.claim(
            new ClaimRequest(
                id, FP, clock.instant(), Duration.ofSeconds(30), Duration.ofHours(24)));
  }
}
