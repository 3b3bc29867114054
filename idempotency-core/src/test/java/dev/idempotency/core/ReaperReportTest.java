package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reaper's report names only the in-flight records it deleted: not the ones a store with its
 * own clock lists although they are within retention, nor the ones the delete skipped.
 */
@Timeout(30)
class ReaperReportTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});

  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore memory = new InMemoryKeyStore();
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(memory)
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

  /**
   * An operation that checkpointed and then crashed: in flight, its lease running out 30 s from
   * now.
   */
  private RecordId abandon(String key) {
    RecordId id = RecordId.of("s", key);
    catchThrowableOfType(
        OperationFailedException.class,
        () ->
            engine.execute(
                id,
                FP,
                Work.stepped(
                    e -> {
                      e.checkpoint(RecoveryPoint.of("charged"));
                      throw new IllegalStateException("crash");
                    })));
    return id;
  }

  /**
   * The in-memory store as a store with {@link StoreCapability#SERVER_CLOCK} behaves: it judges
   * leases and retention by its own clock (here the same time as the engine's) and ignores the
   * cutoff the reaper passes.
   */
  private KeyStore withServerClock() {
    return new DelegatingStore(memory) {
      @Override
      public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
        return super.findAbandoned(clock.instant(), limit);
      }

      @Override
      public int deleteExpired(Instant now, Duration retention, int limit) {
        return super.deleteExpired(clock.instant(), retention, limit);
      }

      @Override
      public Set<StoreCapability> capabilities() {
        EnumSet<StoreCapability> caps = EnumSet.of(StoreCapability.SERVER_CLOCK);
        caps.addAll(memory.capabilities());
        return caps;
      }
    };
  }

  @Test
  void withAServerClockALeaseThatJustExpiredIsNeitherDeletedNorReported() {
    RecordId stuck = abandon("stuck");
    KeyStore store = withServerClock();
    clock.advance(Duration.ofSeconds(31));

    Reaper.Report early = new Reaper(store, engine.config(), 10, 1).runOnce();
    assertThat(early.deleted())
        .as("a lease that expired 1 s ago is within the 72 h retention")
        .isZero();
    assertThat(early.unfinished())
        .as(
            "records reported as deleted by a run that deleted nothing; the store "
                + "lists every expired lease by its own clock, so the report must check what the delete took")
        .isEmpty();
    assertThat(memory.lookup(stuck)).isPresent();

    clock.advance(Duration.ofHours(73));
    Reaper.Report late = new Reaper(store, engine.config(), 10, 1).runOnce();
    assertThat(late.deleted()).isEqualTo(1);
    assertThat(late.unfinished())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.id()).isEqualTo(stuck);
              assertThat(s.recoveryPoint()).map(RecoveryPoint::name).contains("charged");
            });
  }

  /**
   * A record the delete skips (another transaction holds it locked, say) is reported by the run
   * that deletes it.
   */
  @Test
  void aRecordTheDeleteSkippedIsReportedByTheRunThatDeletesIt() {
    RecordId stuck = abandon("stuck");
    AtomicBoolean locked = new AtomicBoolean(true);
    KeyStore store =
        new DelegatingStore(memory) {
          @Override
          public int deleteExpired(Instant now, Duration retention, int limit) {
            return locked.get() ? 0 : super.deleteExpired(now, retention, limit);
          }
        };
    clock.advance(Duration.ofHours(73));

    Reaper.Report skipped = new Reaper(store, engine.config(), 10, 1).runOnce();
    assertThat(skipped.deleted()).isZero();
    assertThat(skipped.unfinished())
        .as("a record the delete skipped, reported as deleted")
        .isEmpty();

    locked.set(false);
    Reaper.Report taken = new Reaper(store, engine.config(), 10, 1).runOnce();
    assertThat(taken.deleted()).isEqualTo(1);
    assertThat(taken.unfinished()).extracting(RecordSnapshot::id).containsExactly(stuck);
    assertThat(memory.lookup(stuck)).isEmpty();
  }

  /**
   * With the engine's clock, a lease within retention is neither deleted nor reported; a completed
   * record is never reported.
   */
  @Test
  void withTheEnginesClockOnlyAbandonedRecordsPastRetentionAreReported() throws Exception {
    RecordId old = abandon("old");
    engine.execute(
        RecordId.of("s", "done"),
        FP,
        Work.stepped(e -> dev.idempotency.StoredResponse.ofUtf8(200, "ok")));
    clock.advance(Duration.ofHours(72));
    RecordId young = abandon("young");
    clock.advance(Duration.ofHours(1));

    Reaper.Report report = new Reaper(memory, engine.config(), 10, 1).runOnce();
    assertThat(report.deleted()).as("the old abandoned record and the completed one").isEqualTo(2);
    assertThat(report.unfinished()).extracting(RecordSnapshot::id).containsExactly(old);
    assertThat(memory.lookup(young)).isPresent();
  }
}
