package dev.idempotency.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Reaper;
import dev.idempotency.core.Work;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@value IdempotencyMetrics#DUPLICATE_RISK} counts, by cause, exactly the engine's events that can
 * lead to a duplicate side effect, and {@value IdempotencyMetrics#ORPHANED} the keys found claimed
 * and never completed; the events that cannot (a takeover that resumes from a recovery point, a
 * response replaced by the not-stored marker, a lease lost while the work runs) count nothing.
 */
class AlarmMetersTest {
  private static final Fingerprint FP = Fingerprint.of("a".getBytes(StandardCharsets.UTF_8));
  private static final StoredResponse OK = StoredResponse.ofUtf8(200, "ok");
  private static final List<String> CAUSES =
      List.of("takeover_without_recovery_point", "completion_failed", "lease_lost_after_work");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final IdempotencyMetrics metrics = IdempotencyMetrics.create(registry);
  private final MutableClock clock = new MutableClock();
  private final InMemoryKeyStore memory = new InMemoryKeyStore();
  private IdempotencyEngine engine = engineOver(memory, Duration.ofSeconds(30));

  @AfterEach
  void close() {
    engine.close();
  }

  private IdempotencyEngine engineOver(KeyStore store, Duration lease) {
    return IdempotencyEngine.builder(metrics.timed(store))
        .config(
            IdempotencyConfig.builder()
                .clock(clock)
                .lease(lease)
                .heartbeatInterval(lease.dividedBy(3))
                .listener(metrics)
                .build())
        .build();
  }

  /** Every cause's count, the zeros included. */
  private Map<String, Double> risks() {
    Map<String, Double> counts = new TreeMap<>();
    for (String cause : CAUSES) {
      counts.put(
          cause,
          registry.get(IdempotencyMetrics.DUPLICATE_RISK).tag("cause", cause).counter().count());
    }
    return counts;
  }

  private static Map<String, Double> only(String cause) {
    Map<String, Double> counts = new TreeMap<>();
    CAUSES.forEach(c -> counts.put(c, c.equals(cause) ? 1.0 : 0.0));
    return counts;
  }

  private double orphaned(String foundBy) {
    return registry.get(IdempotencyMetrics.ORPHANED).tag("found_by", foundBy).counter().count();
  }

  /** Another instance claims {@code id} now and dies: in flight, no recovery point. */
  private void claimedByAnInstanceThatDied(RecordId id) {
    assertThat(
            memory.claim(
                new ClaimRequest(
                    id, FP, clock.instant(), Duration.ofSeconds(30), Duration.ofDays(1))))
        .isInstanceOf(ClaimOutcome.Claimed.class);
  }

  @Test
  void everyCounterIsRegisteredAtZeroBeforeAnythingHappened() {
    assertThat(risks()).isEqualTo(only("none"));
    assertThat(orphaned("takeover")).isZero();
    assertThat(orphaned("reaper")).isZero();
  }

  @Test
  void aTakeoverWithoutARecoveryPointIsARiskAndAnOrphanFound() throws Exception {
    RecordId id = RecordId.of("acct", "k1");
    claimedByAnInstanceThatDied(id);
    clock.advance(Duration.ofMinutes(1)); // past the 30 s lease

    engine.execute(id, FP, Work.stepped(e -> OK));

    assertThat(risks()).isEqualTo(only("takeover_without_recovery_point"));
    assertThat(orphaned("takeover")).isEqualTo(1);
  }

  @Test
  void aTakeoverThatResumesFromARecoveryPointIsAnOrphanFoundButNoRisk() throws Exception {
    RecordId id = RecordId.of("acct", "k2");
    assertThatThrownBy(
            () ->
                engine.execute(
                    id,
                    FP,
                    Work.stepped(
                        e -> {
                          e.checkpoint(RecoveryPoint.of("charged"));
                          throw new IllegalStateException("crash after the charge");
                        })))
        .isInstanceOf(OperationFailedException.class);
    clock.advance(Duration.ofMinutes(1));

    engine.execute(id, FP, Work.stepped(e -> OK));

    assertThat(risks()).isEqualTo(only("none"));
    assertThat(orphaned("takeover")).isEqualTo(1);
  }

  @Test
  void aCompletionThatStoredNothingIsARisk() throws Exception {
    engine.close();
    KeyStore down =
        new DelegatingStore(memory) {
          @Override
          public void complete(RecordId id, FenceToken fence, StoredResponse r, Instant now) {
            throw new StoreUnavailableException("down while completing", null);
          }
        };
    // a short lease: the completion is retried for at most one lease
    engine = engineOver(down, Duration.ofMillis(300));

    engine.execute(RecordId.of("acct", "k3"), FP, Work.stepped(e -> OK));

    assertThat(risks()).isEqualTo(only("completion_failed"));
    assertThat(orphaned("takeover")).isZero();
  }

  @Test
  void aResponseReplacedByTheNotStoredMarkerIsNoRisk() throws Exception {
    engine.close();
    engine =
        engineOver(
            new DelegatingStore(memory) {
              @Override
              public long maxResponseBytes() {
                return 1;
              }
            },
            Duration.ofSeconds(30));

    engine.execute(RecordId.of("acct", "k4"), FP, Work.stepped(e -> OK));

    assertThat(registry.get(IdempotencyMetrics.UNSTORED).tag("kept", "marker").counter().count())
        .isEqualTo(1);
    assertThat(risks()).isEqualTo(only("none"));
  }

  @Test
  void aLeaseLostAfterTheWorkReturnedIsARisk() {
    RecordId id = RecordId.of("acct", "k5");
    assertThatThrownBy(
            () ->
                engine.execute(
                    id,
                    FP,
                    Work.stepped(
                        e -> {
                          takeOverFromAnotherInstance(id);
                          return OK;
                        })))
        .isInstanceOf(LeaseLostException.class);

    assertThat(risks()).isEqualTo(only("lease_lost_after_work"));
    assertThat(registry.get(IdempotencyMetrics.LEASE_LOST).counter().count()).isEqualTo(1);
  }

  @Test
  void aLeaseLostWhileTheWorkRunsIsNoRiskOfThisOwners() {
    RecordId id = RecordId.of("acct", "k6");
    assertThatThrownBy(
            () ->
                engine.execute(
                    id,
                    FP,
                    Work.stepped(
                        e -> {
                          takeOverFromAnotherInstance(id);
                          e.checkpoint(RecoveryPoint.of("charged")); // refused: the owner stops
                          return OK;
                        })))
        .isInstanceOf(LeaseLostException.class);

    assertThat(registry.get(IdempotencyMetrics.LEASE_LOST).counter().count()).isEqualTo(1);
    assertThat(risks()).isEqualTo(only("none"));
  }

  /** Another instance, whose clock is past this owner's lease, takes {@code id} over. */
  private void takeOverFromAnotherInstance(RecordId id) {
    assertThat(
            memory.claim(
                new ClaimRequest(
                    id,
                    FP,
                    clock.instant().plusSeconds(31),
                    Duration.ofSeconds(30),
                    Duration.ofDays(1))))
        .isInstanceOfSatisfying(ClaimOutcome.Claimed.class, c -> assertThat(c.takeover()).isTrue());
  }

  @Test
  void recordsTheReaperDeletedUnfinishedAreOrphansFound() {
    RecordId id = RecordId.of("acct", "k7");
    claimedByAnInstanceThatDied(id);
    RecordSnapshot unfinished = memory.lookup(id).orElseThrow();

    metrics.reaperRan(new Reaper.Report(5, 1, List.of(unfinished, unfinished), false));

    assertThat(orphaned("reaper")).isEqualTo(2);
    assertThat(orphaned("takeover")).isZero();
    assertThat(risks()).isEqualTo(only("none"));
  }
}
