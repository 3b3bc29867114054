package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/operations.md's "Keys that stay in flight", compiled and run: the region {@code
 * settle} is the page's block, word for word as code, against two abandoned records.
 */
class AdminSnippetsTest {
  private final MutableClock clock = new MutableClock();

  @Test
  void theDocumentedSessionListsAndSettlesTwoAbandonedKeys() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    try (IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(IdempotencyConfig.builder().clock(clock).build())
            .build()) {
      abandon(store, RecordId.of("tenant-1", "order-17"), Optional.empty());
      abandon(store, RecordId.of("tenant-1", "order-18"), Optional.of(RecoveryPoint.of("charged")));
      Completer.Resumer resumer =
          record -> Optional.of(execution -> StoredResponse.ofUtf8(201, "receipt"));

      // tag::settle[]
      KeyStoreAdmin admin = KeyStoreAdmin.builder(engine).resumer(resumer).build();

      // the abandoned keys of one scope, 50 a page, without their stored bodies
      List<RecordView> stuck = new ArrayList<>();
      RecordQuery query = admin.query(RecordSelection.ABANDONED, 50).inScope(Scope.of("tenant-1"));
      while (true) {
        RecordPage page = admin.list(query);
        page.records().stream().map(RecordView::of).forEach(stuck::add);
        if (page.next().isEmpty()) {
          break;
        }
        query = query.after(page.next().get());
      }

      // settle them: give one up (its retry runs anew), finish the other from its recovery point
      KeyStoreAdmin.Result released =
          admin.release(RecordId.of("tenant-1", "order-17"), "card never charged, ticket 4711");
      KeyStoreAdmin.Result redriven = admin.redrive(RecordId.of("tenant-1", "order-18"));
      // end::settle[]

      assertThat(stuck)
          .extracting(RecordView::id)
          .containsExactly(
              RecordId.of("tenant-1", "order-17"), RecordId.of("tenant-1", "order-18"));
      assertThat(released.status()).isEqualTo(KeyStoreAdmin.Status.RELEASED);
      assertThat(redriven.status()).isEqualTo(KeyStoreAdmin.Status.REDRIVEN);
      assertThat(store.lookup(RecordId.of("tenant-1", "order-17"))).isEmpty();
      assertThat(store.lookup(RecordId.of("tenant-1", "order-18")).orElseThrow().response())
          .get()
          .extracting(StoredResponse::bodyAsUtf8)
          .isEqualTo("receipt");
    }
  }

  /** A record whose owner died: claimed, maybe checkpointed, its lease run out. */
  private void abandon(InMemoryKeyStore store, RecordId id, Optional<RecoveryPoint> point) {
    Duration lease = IdempotencyConfig.DEFAULT_LEASE;
    ClaimOutcome.Claimed c =
        (ClaimOutcome.Claimed)
            store.claim(
                new ClaimRequest(
                    id,
                    Fingerprint.of(new byte[] {7}),
                    clock.instant(),
                    lease,
                    IdempotencyConfig.DEFAULT_REPLAY_WINDOW));
    point.ifPresent(p -> store.checkpoint(id, c.fence(), p, clock.instant(), lease));
    clock.advance(lease);
  }
}
