package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.StoreUnavailableException;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.DelegatingStore;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A call cancelled (here: past its deadline) while its duplicate's claim is under way in the
 * engine's in-flight wait: the claim finishes undisturbed and the wait ends before the next one. A
 * store round trip the cancellation interrupted would be reported as an outage (as the Redis store
 * reports an interrupted call) and, had its claim won, leave the key in flight for a lease.
 */
class GrpcWaitCancellationTest {
  @Test
  void aCancellationDuringAWaitingClaimNeitherInterruptsTheStoreNorClaimsAgain() throws Exception {
    AtomicInteger duplicateClaims = new AtomicInteger();
    DelegatingStore store =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            Context call = Context.current();
            if (call.getDeadline() != null) { // the duplicate's claims: only it has a deadline
              if (duplicateClaims.incrementAndGet() == 2) {
                holdUntilCancelled(call);
              }
            }
            return super.claim(request);
          }
        };
    try (GrpcFixture f =
        new GrpcFixture(
            store,
            4,
            e ->
                e.inFlightPolicy(
                    InFlightPolicy.waitUpTo(Duration.ofSeconds(60), Duration.ofMillis(20))),
            c -> c)) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        ChargeRequest held =
            ChargeRequest.newBuilder()
                .setOrderId("w-1")
                .setAmountCents(100)
                .setHoldMillis(-1)
                .build();
        Future<ChargeReply> first =
            caller.submit(() -> f.stub(callerAndKey("acct-1", "k-wait")).charge(held));
        GrpcContractTest.awaitRuns(f, "w-1", 1);

        StatusRuntimeException late =
            catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    f.stub(callerAndKey("acct-1", "k-wait"))
                        .withDeadlineAfter(500, TimeUnit.MILLISECONDS)
                        .charge(held));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        GrpcContractTest.awaitEvent(f, IdempotencyEvent.InFlightConflict.class);

        assertThat(f.eventsOf(IdempotencyEvent.StoreUnavailable.class))
            .as("a store outage reported for a claim the cancellation interrupted")
            .isZero();
        assertThat(duplicateClaims).as("the duplicate's claims: none after the cancel").hasValue(2);

        gate.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        assertThat(f.payments.runs("w-1")).isEqualTo(1);
      } finally {
        gate.countDown();
        GrpcContractTest.shutDown(caller);
      }
    }
  }

  /**
   * Holds a claim until its call is cancelled, then a little longer: a cancellation that interrupts
   * the thread lands here, and is reported as the store's outage, as a real store reports an
   * interrupted round trip.
   */
  private static void holdUntilCancelled(Context call) {
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!call.isCancelled() && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("the claim was interrupted", e);
    }
  }
}
