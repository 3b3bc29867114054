package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.DelegatingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WaitCancellation} ends the engine's in-flight wait from another thread without an
 * interrupt: at once while it sleeps, after the claim under way finishes when one is, and never
 * with a further claim.
 */
class WaitCancellationTest {
  private static final RecordId ID = RecordId.of("acct-1", "k-waiting");
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});

  private final InMemoryKeyStore real = new InMemoryKeyStore();
  private final BlockingQueue<ClaimOutcome> claims = new LinkedBlockingQueue<>();
  private final ExecutorService waiter = Executors.newSingleThreadExecutor();
  private final AtomicBoolean interruptedAfter = new AtomicBoolean();
  private final AtomicBoolean ran = new AtomicBoolean();

  @AfterEach
  void stop() throws InterruptedException {
    waiter.shutdownNow();
    assertThat(waiter.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Someone else holds the key, with a lease that outlasts the test. */
  private void keyInFlight() {
    real.claim(
        new ClaimRequest(ID, FP, Instant.now(), Duration.ofMinutes(5), Duration.ofHours(24)));
  }

  private Future<Outcome> execute(IdempotencyEngine engine, WaitCancellation cancellation) {
    return waiter.submit(
        () -> {
          Outcome outcome =
              engine.execute(
                  ID,
                  FP,
                  Work.stepped(
                      execution -> {
                        ran.set(true);
                        return StoredResponse.ofUtf8(201, "{}");
                      }),
                  cancellation);
          interruptedAfter.set(Thread.currentThread().isInterrupted());
          return outcome;
        });
  }

  @Test
  void aCancelWhileTheWaitSleepsEndsItAtOnceWithoutAnotherClaim() throws Exception {
    keyInFlight();
    DelegatingStore counting =
        new DelegatingStore(real) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            claims.add(outcome);
            return outcome;
          }
        };
    // a poll interval far beyond the test's bound: only the cancel can end this sleep in time
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(counting)
            .config(
                IdempotencyConfig.builder()
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofSeconds(60), Duration.ofSeconds(30)))
                    .build())
            .build()) {
      WaitCancellation cancellation = new WaitCancellation();
      Future<Outcome> waiting = execute(engine, cancellation);
      assertThat(claims.poll(10, TimeUnit.SECONDS)).isInstanceOf(ClaimOutcome.InFlight.class);

      cancellation.cancel();

      assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(Outcome.InFlightConflict.class);
      assertThat(claims).as("claims after the cancel").isEmpty();
      assertThat(interruptedAfter).as("the waiting thread was interrupted").isFalse();
      assertThat(ran).isFalse();
    }
  }

  @Test
  void aCancelDuringAClaimLetsItFinishUndisturbedAndEndsTheWaitBeforeTheNext() throws Exception {
    keyInFlight();
    CountDownLatch inSecondClaim = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean claimInterrupted = new AtomicBoolean();
    DelegatingStore holding =
        new DelegatingStore(real) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            if (claims.size() == 1) { // the second claim: hold it as a slow round trip would
              inSecondClaim.countDown();
              try {
                release.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                claimInterrupted.set(true);
                Thread.currentThread().interrupt();
              }
            }
            claims.add(outcome);
            return outcome;
          }
        };
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(holding)
            .config(
                IdempotencyConfig.builder()
                    .inFlightPolicy(
                        InFlightPolicy.waitUpTo(Duration.ofSeconds(60), Duration.ofMillis(10)))
                    .build())
            .build()) {
      WaitCancellation cancellation = new WaitCancellation();
      Future<Outcome> waiting = execute(engine, cancellation);
      assertThat(inSecondClaim.await(10, TimeUnit.SECONDS)).isTrue();

      cancellation.cancel();
      release.countDown();

      assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(Outcome.InFlightConflict.class);
      assertThat(claimInterrupted).as("the claim under way was interrupted").isFalse();
      assertThat(claims).as("claims: the two made, none after the cancel").hasSize(2);
      assertThat(interruptedAfter).isFalse();
    }
  }
}
