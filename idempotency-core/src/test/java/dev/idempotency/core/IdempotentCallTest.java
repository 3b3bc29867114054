package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.DelegatingStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link IdempotentCall}: typed results for work that is not an HTTP request. */
class IdempotentCallTest {
  private static final RecordId ID = RecordId.of("acct-1", "invoice-evt-1");
  private static final Fingerprint EVENT_A =
      FingerprintBuilder.forPurpose("invoice/1").add("order-1").add(4200).build();
  private static final Fingerprint EVENT_B =
      FingerprintBuilder.forPurpose("invoice/1").add("order-1").add(9900).build();

  private final InMemoryKeyStore store = new InMemoryKeyStore();
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(store)
          .config(
              IdempotencyConfig.builder()
                  .inFlightPolicy(
                      InFlightPolicy.waitUpTo(Duration.ofSeconds(10), Duration.ofMillis(5)))
                  .build())
          .build();
  private final IdempotentCall<String> createInvoice =
      IdempotentCall.of(engine, ResultCodec.utf8());
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void close() {
    engine.close();
  }

  private String invoice() {
    return "invoice-" + runs.incrementAndGet();
  }

  @Test
  void aSecondCallReturnsTheStoredResultWithoutRunningTheWork() {
    assertThat(createInvoice.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
        .isEqualTo("invoice-1");
    assertThat(createInvoice.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
        .isEqualTo("invoice-1");
    assertThat(runs).hasValue(1);
    assertThat(store.lookup(ID).orElseThrow().state()).isEqualTo(KeyState.COMPLETE);
  }

  @Test
  void theSameKeyWithAnotherRequestIsAReusedKey() {
    createInvoice.run(ID, EVENT_A, Work.stepped(execution -> invoice()));
    assertThatThrownBy(() -> createInvoice.run(ID, EVENT_B, Work.stepped(execution -> invoice())))
        .isInstanceOfSatisfying(
            IdempotencyKeyReusedException.class,
            e -> {
              assertThat(e.id()).isEqualTo(ID);
              assertThat(e.existingState()).isEqualTo(KeyState.COMPLETE);
            });
    assertThat(runs).hasValue(1);
  }

  @Test
  void concurrentCallsWithOneKeyRunTheWorkOnceAndAllGetItsResult() throws Exception {
    int callers = 16;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return createInvoice.run(
                      ID,
                      EVENT_A,
                      Work.stepped(
                          execution -> {
                            Thread.sleep(20); // keep the key in flight while the others arrive
                            return invoice();
                          }));
                }));
      }
      start.countDown();
      for (Future<String> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("invoice-1");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(runs).as("the claim must let one of %s callers run the work", callers).hasValue(1);
  }

  @Test
  void anUncheckedFailureIsRethrownAsItWasAndReleasesTheKey() {
    IllegalArgumentException failure = new IllegalArgumentException("no such customer");
    assertThatThrownBy(
            () ->
                createInvoice.run(
                    ID,
                    EVENT_A,
                    Work.stepped(
                        execution -> {
                          throw failure;
                        })))
        .isSameAs(failure);
    assertThat(store.lookup(ID)).as("released: nothing had committed").isEmpty();
    assertThat(createInvoice.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
        .isEqualTo("invoice-1");
  }

  @Test
  void aCheckedFailureComesWrappedWithWhetherTheKeyWasReleased() {
    IOException failure = new IOException("ledger unreachable");
    assertThatThrownBy(
            () ->
                createInvoice.run(
                    ID,
                    EVENT_A,
                    Work.stepped(
                        execution -> {
                          throw failure;
                        })))
        .isInstanceOfSatisfying(
            IdempotentWorkFailedException.class,
            e -> {
              assertThat(e).hasCause(failure);
              assertThat(e.keyReleased()).isTrue();
              assertThat(e.id()).isEqualTo(ID);
            });
  }

  @Test
  void aStoreThatIsDownRunsNothing() {
    StoreUnavailableException down = new StoreUnavailableException("connection refused");
    DelegatingStore unreachable =
        new DelegatingStore(store) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            throw down;
          }
        };
    try (IdempotencyEngine downEngine = IdempotencyEngine.builder(unreachable).build()) {
      IdempotentCall<String> call = IdempotentCall.of(downEngine, ResultCodec.utf8());
      assertThatThrownBy(() -> call.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
          .isSameAs(down);
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void aKeyInFlightPastTheWaitIsAnInFlightException() throws Exception {
    try (IdempotencyEngine rejecting =
        IdempotencyEngine.builder(store)
            .config(IdempotencyConfig.builder().inFlightPolicy(InFlightPolicy.reject()).build())
            .build()) {
      IdempotentCall<String> call = IdempotentCall.of(rejecting, ResultCodec.utf8());
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch finish = new CountDownLatch(1);
      Thread owner =
          new Thread(
              () ->
                  call.run(
                      ID,
                      EVENT_A,
                      Work.stepped(
                          execution -> {
                            running.countDown();
                            finish.await(30, TimeUnit.SECONDS);
                            return invoice();
                          })));
      owner.start();
      try {
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> call.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
            .isInstanceOfSatisfying(
                IdempotencyKeyInFlightException.class,
                e -> assertThat(e.retryAfter()).isPositive());
      } finally {
        finish.countDown();
        owner.join(30_000);
      }
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void aResponseThisClassDidNotStoreIsNotDecodedAsAResult() throws Exception {
    engine.execute(
        ID,
        EVENT_A,
        Work.stepped(
            execution -> StoredResponse.of(201, Map.of("Location", List.of("/i/1")), new byte[0])));
    assertThatThrownBy(() -> createInvoice.run(ID, EVENT_A, Work.stepped(execution -> invoice())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("status 201");
    assertThat(runs).hasValue(0);
  }

  /**
   * A result too large for the store runs once: the first call gets it, a redelivery gets a clear
   * exception saying the work ran and its result was not stored, and the work does not run again.
   */
  @Test
  void aResultTooLargeToStoreRunsOnceAndARedeliveryIsToldItWasNotStored() {
    DelegatingStore small =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public long maxResponseBytes() {
            return 16;
          }
        };
    try (IdempotencyEngine smallEngine = IdempotencyEngine.builder(small).build()) {
      IdempotentCall<String> call = IdempotentCall.of(smallEngine, ResultCodec.utf8());
      String big = "x".repeat(100);

      assertThat(call.run(ID, EVENT_A, Work.stepped(execution -> big + runs.incrementAndGet())))
          .startsWith(big);
      assertThatThrownBy(
              () -> call.run(ID, EVENT_A, Work.stepped(execution -> big + runs.incrementAndGet())))
          .isInstanceOfSatisfying(
              IdempotentResultNotStoredException.class,
              e -> assertThat(e.reason()).startsWith("200; ").contains("larger than the store"));
      assertThat(runs).hasValue(1);
    }
  }

  @Test
  void aTransactionalCallNeedsATransactionalStore() {
    assertThatThrownBy(
            () ->
                createInvoice.run(
                    ID, EVENT_A, Work.inOneTransaction(Object.class, tx -> invoice())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("TRANSACTIONAL");
    assertThat(runs).hasValue(0);
    assertThat(store.lookup(ID)).isEmpty();
  }

  @Test
  void theCodecsRoundTrip() throws Exception {
    byte[] bytes = {1, 2, 3};
    byte[] decoded = ResultCodec.bytes().decode(ResultCodec.bytes().encode(bytes));
    assertThat(decoded).containsExactly(1, 2, 3).isNotSameAs(bytes);
    assertThat(ResultCodec.utf8().decode(ResultCodec.utf8().encode("Grüße"))).isEqualTo("Grüße");
  }
}
