package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a phase's refused write tells the execution, and what it does not. */
@Timeout(30)
class ExecutionPhasesTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});
  private static final RecordId ID = RecordId.of("acct", "k1");

  private final InMemoryKeyStore memory = new InMemoryKeyStore();

  /** The store refused the phase's fenced write: another owner has the record. */
  @Test
  void aPhaseWhoseFenceTheStoreRefusedMarksTheLeaseLost() throws Exception {
    AtomicBoolean told = new AtomicBoolean();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(new TransactionalMemoryStore(memory)).build()) {
      // the completion's write is refused too: the engine says so
      assertThatThrownBy(
              () ->
                  engine.execute(
                      ID,
                      FP,
                      Work.stepped(
                          execution -> {
                            memory.release(
                                ID, execution.fence(), Instant.now()); // the fence is stale
                            assertThatThrownBy(
                                    () ->
                                        execution.checkpoint(
                                            RecoveryPoint.of("charged", new byte[0]),
                                            Object.class,
                                            tx -> ""))
                                .isInstanceOf(LeaseLostException.class);
                            told.set(execution.leaseLost());
                            return StoredResponse.ofUtf8(201, "done");
                          })))
          .isInstanceOf(LeaseLostException.class);
    }
    assertThat(told).isTrue();
  }

  /**
   * The work's own call lost another record's lease (a nested request, say): this execution still
   * holds its record, and its lease is still renewed.
   */
  @Test
  void anotherRecordsLostLeaseThrownByTheWorkLeavesThisLeaseAlone() throws Exception {
    AtomicBoolean told = new AtomicBoolean(true);
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(new TransactionalMemoryStore(memory)).build()) {
      engine.execute(
          ID,
          FP,
          Work.stepped(
              execution -> {
                assertThatThrownBy(
                        () ->
                            execution.checkpoint(
                                RecoveryPoint.of("charged", new byte[0]),
                                Object.class,
                                tx -> {
                                  throw new LeaseLostException(
                                      RecordId.of("acct", "nested"),
                                      FenceToken.of(7),
                                      "taken over");
                                }))
                    .isInstanceOf(LeaseLostException.class);
                told.set(execution.leaseLost());
                return StoredResponse.ofUtf8(201, "done");
              }));
    }
    assertThat(told).isFalse();
  }

  /** A store with no transactions of the application's, or another handle, is refused. */
  @Test
  void aPhaseOnAStoreWithoutTransactionsOrWithAnotherHandleIsRefusedBeforeTheWork()
      throws Exception {
    AtomicBoolean ran = new AtomicBoolean();
    try (IdempotencyEngine plain = IdempotencyEngine.builder(memory).build();
        IdempotencyEngine transactional =
            IdempotencyEngine.builder(new TransactionalMemoryStore(memory)).build()) {
      plain.execute(
          ID,
          FP,
          Work.stepped(
              execution -> {
                assertThatThrownBy(
                        () ->
                            execution.completeWith(
                                Object.class,
                                tx -> {
                                  ran.set(true);
                                  return StoredResponse.ofUtf8(201, "x");
                                }))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("runs no transaction");
                return StoredResponse.ofUtf8(201, "done");
              }));
      transactional.execute(
          RecordId.of("acct", "k2"),
          FP,
          Work.stepped(
              execution -> {
                assertThatThrownBy(
                        () ->
                            execution.completeWith(
                                String.class,
                                tx -> {
                                  ran.set(true);
                                  return StoredResponse.ofUtf8(201, "x");
                                }))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("java.lang.Object");
                return StoredResponse.ofUtf8(201, "done");
              }));
    }
    assertThat(ran).isFalse();
  }
}
