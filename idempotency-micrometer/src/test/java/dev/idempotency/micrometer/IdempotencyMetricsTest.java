package dev.idempotency.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Reaper;
import dev.idempotency.core.Work;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotencyMetricsTest {
  private static final Fingerprint FP = fingerprint("a");
  private static final StoredResponse OK = StoredResponse.ofUtf8(200, "ok");

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final IdempotencyMetrics metrics = IdempotencyMetrics.create(registry);
  private final MutableClock clock = new MutableClock();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private IdempotencyEngine engine = engineOver(new InMemoryKeyStore());

  @AfterEach
  void close() throws InterruptedException {
    engine.close();
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private IdempotencyEngine engineOver(KeyStore store) {
    return engineOver(metrics, store);
  }

  private IdempotencyEngine engineOver(IdempotencyMetrics meters, KeyStore store) {
    return IdempotencyEngine.builder(meters.timed(store))
        .config(IdempotencyConfig.builder().clock(clock).listener(meters).build())
        .build();
  }

  private static Fingerprint fingerprint(String s) {
    return Fingerprint.of(s.getBytes(StandardCharsets.UTF_8));
  }

  private double outcomes(String outcome) {
    return registry.get(IdempotencyMetrics.OUTCOMES).tag("outcome", outcome).counter().count();
  }

  private long claims(String result) {
    return registry.get(IdempotencyMetrics.CLAIM).tag("result", result).timer().count();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  @Test
  void executedReplayedAndMismatchAreCountedWithTheirClaims() throws Exception {
    RecordId id = RecordId.of("acct", "k1");
    engine.execute(id, FP, Work.stepped(e -> OK));
    engine.execute(id, FP, Work.stepped(e -> OK));
    engine.execute(id, fingerprint("other"), Work.stepped(e -> OK));

    assertThat(outcomes("executed")).isEqualTo(1);
    assertThat(outcomes("replayed")).isEqualTo(1);
    assertThat(outcomes("mismatch")).isEqualTo(1);
    assertThat(claims("claimed")).isEqualTo(1);
    assertThat(claims("completed")).isEqualTo(1);
    assertThat(claims("mismatch")).isEqualTo(1);
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  /**
   * Two engines' meters in one registry, told apart by their common tags: every meter of each
   * carries its tag, neither set collides with the other, and one engine's request counts in its
   * own series only.
   */
  @Test
  void commonTagsAreOnEveryMeterAndKeepTwoEnginesApart() throws Exception {
    SimpleMeterRegistry shared = new SimpleMeterRegistry();
    IdempotencyMetrics payments =
        IdempotencyMetrics.builder(shared).tags(Tags.of("engine", "payments")).build();
    IdempotencyMetrics.builder(shared).tags(Tags.of("engine", "orders")).build();

    List<Meter> meters = shared.getMeters();
    assertThat(meters).isNotEmpty();
    assertThat(meters)
        .as("every meter carries its engine's tag")
        .allSatisfy(m -> assertThat(m.getId().getTag("engine")).isIn("payments", "orders"));
    long paymentsMeters =
        meters.stream().filter(m -> "payments".equals(m.getId().getTag("engine"))).count();
    assertThat(paymentsMeters * 2).as("the same meters for each engine").isEqualTo(meters.size());

    try (IdempotencyEngine paying = engineOver(payments, new InMemoryKeyStore())) {
      paying.execute(RecordId.of("acct", "tagged"), FP, Work.stepped(e -> OK));
    }
    assertThat(
            shared
                .get(IdempotencyMetrics.OUTCOMES)
                .tags("engine", "payments", "outcome", "executed")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            shared
                .get(IdempotencyMetrics.OUTCOMES)
                .tags("engine", "orders", "outcome", "executed")
                .counter()
                .count())
        .isZero();
  }

  @Test
  void aRunningOperationIsInFlightAndItsDuplicateIsAnInFlightConflict() throws Exception {
    RecordId id = RecordId.of("acct", "k2");
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<Outcome> first =
        pool.submit(
            () ->
                engine.execute(
                    id,
                    FP,
                    Work.stepped(
                        e -> {
                          running.countDown();
                          assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
                          return OK;
                        })));
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isEqualTo(1);

    assertThat(engine.execute(id, FP, Work.stepped(e -> OK)))
        .isInstanceOf(Outcome.InFlightConflict.class);
    assertThat(outcomes("in_flight")).isEqualTo(1);
    assertThat(claims("in_flight")).isEqualTo(1);

    finish.countDown();
    assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  @Test
  void aClaimTheStoreRefusesIsStoreUnavailableAndNothingRuns() throws Exception {
    engine.close();
    engine =
        engineOver(
            new DelegatingStore(new InMemoryKeyStore()) {
              @Override
              public ClaimOutcome claim(ClaimRequest request) {
                throw new StoreUnavailableException("down", null);
              }
            });
    boolean[] ran = {false};
    Outcome outcome =
        engine.execute(
            RecordId.of("acct", "k3"),
            FP,
            Work.stepped(
                e -> {
                  ran[0] = true;
                  return OK;
                }));

    assertThat(outcome).isInstanceOf(Outcome.StoreUnavailable.class);
    assertThat(ran[0]).isFalse();
    assertThat(outcomes("store_unavailable")).isEqualTo(1);
    assertThat(claims("unavailable")).isEqualTo(1);
    assertThat(unstored("nothing") + unstored("marker")).isZero();
  }

  /**
   * A store that stays down while the result is stored (past the lease the completion is retried
   * within) is an executed request whose result was kept nowhere, not a refused claim.
   */
  @Test
  void aStoreThatFailsWhileStoringTheResultIsAnUnstoredExecutionNotARefusedClaim()
      throws Exception {
    engine.close();
    KeyStore down =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void complete(
              RecordId id,
              dev.idempotency.FenceToken fence,
              StoredResponse response,
              java.time.Instant now) {
            throw new StoreUnavailableException("down while completing", null);
          }
        };
    engine =
        IdempotencyEngine.builder(metrics.timed(down))
            .config(
                IdempotencyConfig.builder()
                    .clock(clock)
                    .lease(Duration.ofMillis(300))
                    .heartbeatInterval(Duration.ofMillis(100))
                    .listener(metrics)
                    .build())
            .build();
    engine.execute(RecordId.of("acct", "k4"), FP, Work.stepped(e -> OK));

    assertThat(outcomes("executed")).isEqualTo(1);
    assertThat(outcomes("store_unavailable")).isZero();
    assertThat(unstored("nothing")).isEqualTo(1);
    assertThat(unstored("marker")).isZero();
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  /** A result too large for the store is kept as the not-stored marker, and counted so. */
  @Test
  void aResultTooLargeForTheStoreIsCountedAsKeptByItsMarker() throws Exception {
    engine.close();
    engine =
        engineOver(
            new DelegatingStore(new InMemoryKeyStore()) {
              @Override
              public long maxResponseBytes() {
                return 1;
              }
            });
    engine.execute(RecordId.of("acct", "k6"), FP, Work.stepped(e -> OK));

    assertThat(outcomes("executed")).isEqualTo(1);
    assertThat(unstored("marker")).isEqualTo(1);
    assertThat(unstored("nothing")).isZero();
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  private double unstored(String kept) {
    return registry.get(IdempotencyMetrics.UNSTORED).tag("kept", kept).counter().count();
  }

  @Test
  void aTakeoverOfAnAbandonedRecordIsCountedAndTheAbandonedGaugeSamplesIt() throws Exception {
    RecordId id = RecordId.of("acct", "k5");
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
    clock.advance(Duration.ofMinutes(1)); // past the 30 s lease

    assertThat(metrics.sampleAbandoned(engine.store(), clock.instant(), 100)).isEqualTo(1);
    assertThat(gauge(IdempotencyMetrics.ABANDONED)).isEqualTo(1);

    engine.execute(id, FP, Work.stepped(e -> OK));
    assertThat(outcomes("takeover")).isEqualTo(1);
    assertThat(claims("taken_over")).isEqualTo(1);
    assertThat(metrics.sampleAbandoned(engine.store(), clock.instant(), 100)).isZero();
    assertThat(gauge(IdempotencyMetrics.ABANDONED)).isZero();
  }

  @Test
  void anOwnerPausedPastItsLeaseLosesItOnceAndStopsCountingAsRunning() throws Exception {
    RecordId id = RecordId.of("acct", "k6");
    assertThatThrownBy(
            () ->
                engine.execute(
                    id,
                    FP,
                    Work.stepped(
                        e -> {
                          clock.advance(Duration.ofMinutes(1)); // the owner "pauses" past its lease
                          // a second instance takes the record over meanwhile
                          Future<Outcome> takeover =
                              pool.submit(() -> engine.execute(id, FP, Work.stepped(e2 -> OK)));
                          assertThat(takeover.get(30, TimeUnit.SECONDS))
                              .isInstanceOf(Outcome.Executed.class);
                          return StoredResponse.ofUtf8(200, "late");
                        })))
        .isInstanceOf(LeaseLostException.class);

    assertThat(registry.get(IdempotencyMetrics.LEASE_LOST).counter().count()).isEqualTo(1);
    assertThat(outcomes("takeover")).isEqualTo(1);
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  @Test
  void aReleasedKeyIsCounted() throws Exception {
    assertThatThrownBy(
            () ->
                engine.execute(
                    RecordId.of("acct", "k7"),
                    FP,
                    Work.stepped(
                        e -> {
                          throw new IllegalStateException("before anything committed");
                        })))
        .isInstanceOf(OperationFailedException.class);

    assertThat(registry.get(IdempotencyMetrics.RELEASED).counter().count()).isEqualTo(1);
    assertThat(gauge(IdempotencyMetrics.IN_FLIGHT)).isZero();
  }

  @Test
  void theRequestTimerIsTaggedWithTheRequestsOwnOutcomeNotANestedOne() throws Exception {
    IdempotencyMetrics.Sample sample = metrics.startRequest();
    engine.execute(
        RecordId.of("acct", "outer"),
        FP,
        Work.stepped(
            e -> {
              engine.execute(RecordId.of("acct", "inner"), FP, Work.stepped(e2 -> OK));
              engine.execute(
                  RecordId.of("acct", "inner"), FP, Work.stepped(e2 -> OK)); // a nested replay
              return OK;
            }));
    assertThat(sample.stop()).contains("executed");

    IdempotencyMetrics.Sample replay = metrics.startRequest();
    engine.execute(RecordId.of("acct", "outer"), FP, Work.stepped(e -> OK));
    assertThat(replay.stop()).contains("replayed");

    assertThat(registry.get(IdempotencyMetrics.REQUEST).tag("outcome", "executed").timer().count())
        .isEqualTo(1);
    assertThat(registry.get(IdempotencyMetrics.REQUEST).tag("outcome", "replayed").timer().count())
        .isEqualTo(1);
  }

  @Test
  void aRequestTheEngineNeverDecidedIsNotTimed() {
    IdempotencyMetrics.Sample sample = metrics.startRequest();
    assertThat(sample.stop()).isEmpty();
    assertThat(
            registry.get(IdempotencyMetrics.REQUEST).timers().stream()
                .mapToLong(t -> t.count())
                .sum())
        .isZero();
  }

  @Test
  void tagsStayBoundedWhateverTheKeysAndScopes() throws Exception {
    int before = registry.getMeters().size();
    for (int i = 0; i < 200; i++) {
      RecordId id = RecordId.of("caller-" + i, "key-" + i);
      engine.execute(id, FP, Work.stepped(e -> OK));
      engine.execute(id, FP, Work.stepped(e -> OK));
      engine.execute(id, fingerprint("x"), Work.stepped(e -> OK));
    }
    assertThat(registry.getMeters()).hasSize(before);
    Set<String> tagValues =
        registry.getMeters().stream()
            .map(Meter::getId)
            .flatMap(m -> m.getTags().stream())
            .map(t -> t.getValue())
            .collect(Collectors.toSet());
    assertThat(tagValues).noneMatch(v -> v.contains("caller-") || v.contains("key-"));
  }

  @Test
  void reaperRunsAreCounted() {
    metrics.reaperRan(new Reaper.Report(7, 1, List.of(), false));
    assertThat(registry.get(IdempotencyMetrics.REAPER_DELETED).counter().count()).isEqualTo(7);
    assertThat(registry.get(IdempotencyMetrics.REAPER_UNFINISHED).counter().count()).isZero();
  }
}
