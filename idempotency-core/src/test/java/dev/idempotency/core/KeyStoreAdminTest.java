package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The person-facing operations over a store: each action is fenced, so a live owner is never
 * overwritten, and what a person sees leaves the stored body out unless asked.
 */
class KeyStoreAdminTest {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {1});
  private static final Duration LEASE = IdempotencyConfig.DEFAULT_LEASE;

  private final MutableClock clock = new MutableClock();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final List<IdempotencyEngine> engines = new ArrayList<>();

  @AfterEach
  void close() {
    engines.forEach(IdempotencyEngine::close);
  }

  private IdempotencyEngine engine(KeyStore store) {
    IdempotencyEngine engine =
        IdempotencyEngine.builder(store)
            .config(IdempotencyConfig.builder().clock(clock).listener(events::add).build())
            .build();
    engines.add(engine);
    return engine;
  }

  private ClaimOutcome.Claimed claim(KeyStore store, RecordId id) {
    return (ClaimOutcome.Claimed)
        store.claim(
            new ClaimRequest(
                id, FP, clock.instant(), LEASE, IdempotencyConfig.DEFAULT_REPLAY_WINDOW));
  }

  @Test
  void releaseRefusesALiveLeaseAndTheOwnerKeepsTheRecord() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "busy");
    ClaimOutcome.Claimed owner = claim(store, id);
    clock.advance(LEASE.minusMillis(1));
    Optional<RecordSnapshot> before = store.lookup(id);

    KeyStoreAdmin.Result result = admin.release(id, "looks stuck");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.LEASE_LIVE);
    assertThat(result.done()).isFalse();
    assertThat(result.detail())
        .as("the refusal names the record's own lease end")
        .contains("until " + before.orElseThrow().leaseExpiresAt().orElseThrow());
    assertThat(store.lookup(id)).as("the record after a refused release").isEqualTo(before);
    store.complete(id, owner.fence(), StoredResponse.ofUtf8(200, "done"), clock.instant());
    assertThat(store.lookup(id)).get().extracting(RecordSnapshot::completedAt).isNotNull();
    assertThat(events).isEmpty();
  }

  @Test
  void releaseOfAnAbandonedRecordFencesOutItsOwnerAndEmitsTheReason() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "stuck");
    ClaimOutcome.Claimed owner = claim(store, id);
    store.checkpoint(id, owner.fence(), RecoveryPoint.of("charged"), clock.instant(), LEASE);
    clock.advance(LEASE);

    KeyStoreAdmin.Result result = admin.release(id, "refunded by hand, ticket 4711");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.RELEASED);
    assertThat(result.detail()).contains("charged").contains("ticket 4711");
    assertThat(store.lookup(id)).as("the released record").isEmpty();
    assertThatThrownBy(
            () ->
                store.complete(
                    id, owner.fence(), StoredResponse.ofUtf8(200, "late"), clock.instant()))
        .as("the old owner's completion after the release")
        .isInstanceOf(LeaseLostException.class);
    assertThat(events)
        .singleElement()
        .isInstanceOfSatisfying(
            IdempotencyEvent.Released.class,
            e -> {
              assertThat(e.id()).isEqualTo(id);
              assertThat(e.fence().isNewerThan(owner.fence())).isTrue();
              assertThat(e.reason()).contains("operator").contains("ticket 4711");
            });
    ClaimOutcome.Claimed next = claim(store, id);
    assertThat(next.takeover()).as("the next claim after the release").isFalse();
    assertThat(next.fence().isNewerThan(owner.fence())).isTrue();
  }

  @Test
  void releaseLeavesCompleteAndMissingRecordsAlone() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId done = RecordId.of("s", "done");
    store.complete(
        done, claim(store, done).fence(), StoredResponse.ofUtf8(200, "ok"), clock.instant());
    Optional<RecordSnapshot> before = store.lookup(done);
    RecordId missing = RecordId.of("s", "missing");

    assertThat(admin.release(done, "why not").status()).isEqualTo(KeyStoreAdmin.Status.COMPLETE);
    assertThat(store.lookup(done)).isEqualTo(before);
    assertThat(admin.release(missing, "why not").status())
        .isEqualTo(KeyStoreAdmin.Status.NOT_FOUND);
    assertThat(store.lookup(missing)).isEmpty();
    assertThat(store.size()).isEqualTo(1);
    assertThat(events).isEmpty();
  }

  @Test
  void releaseRefusesAReasonThatIsBlankOrSpansLines() {
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(new InMemoryKeyStore())).build();
    RecordId id = RecordId.of("s", "k");
    assertThatThrownBy(() -> admin.release(id, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reason");
    assertThatThrownBy(() -> admin.release(id, "a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reason");
    assertThatThrownBy(() -> admin.release(id, "x".repeat(201)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reason");
  }

  /**
   * Between the look and the release the record was released and claimed afresh by a retry of the
   * same request, which was abandoned in turn: the admin's takeover is of a newer request than the
   * one the person looked at, so it is handed back, still abandoned, recovery point and all.
   */
  @Test
  void releaseHandsBackANewerRequestThanTheOneLookedAt() {
    InMemoryKeyStore inner = new InMemoryKeyStore();
    RecordId id = RecordId.of("s", "replaced");
    ClaimOutcome.Claimed first = claim(inner, id);
    clock.advance(LEASE);
    AtomicInteger lookups = new AtomicInteger();
    KeyStore store =
        new ForwardingKeyStore(inner) {
          @Override
          public Optional<RecordSnapshot> lookup(RecordId r) {
            Optional<RecordSnapshot> seen = inner.lookup(r);
            if (lookups.getAndIncrement() == 0) {
              ClaimOutcome.Claimed retry = KeyStoreAdminTest.this.claim(inner, id);
              inner.release(id, retry.fence(), clock.instant());
              ClaimOutcome.Claimed fresh = KeyStoreAdminTest.this.claim(inner, id);
              inner.checkpoint(id, fresh.fence(), RecoveryPoint.of("p"), clock.instant(), LEASE);
              clock.advance(LEASE);
            }
            return seen;
          }
        };
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();

    KeyStoreAdmin.Result result = admin.release(id, "stuck");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.CHANGED);
    RecordSnapshot after = inner.lookup(id).orElseThrow();
    assertThat(after.recoveryPoint()).contains(RecoveryPoint.of("p"));
    assertThat(after.fence().isNewerThan(first.fence())).isTrue();
    // handed back with the shortest lease a heartbeat takes: abandoned again a millisecond on
    assertThat(RecordSelection.ABANDONED.matches(after, clock.instant().plusMillis(1)))
        .as("the newer request, handed back: abandoned again")
        .isTrue();
    assertThat(events).isEmpty();
  }

  @Test
  void showLeavesTheBodyOutAndShowWithBodyHasIt() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "paid");
    StoredResponse response = StoredResponse.ofUtf8(201, "card 4242 secret");
    store.complete(id, claim(store, id).fence(), response, clock.instant());

    RecordView view = admin.show(id).orElseThrow();

    assertThat(view.status()).hasValue(201);
    assertThat(view.responseBytes()).hasValue(response.size());
    assertThat(view.notStoredReason()).isEmpty();
    assertThat(view.toString()).doesNotContain("secret");
    assertThat(admin.showWithBody(id).orElseThrow().response())
        .get()
        .extracting(StoredResponse::bodyAsUtf8)
        .isEqualTo("card 4242 secret");
    assertThat(admin.show(RecordId.of("s", "none"))).isEmpty();
  }

  @Test
  void redriveResumesAnAbandonedRecordAndLeavesALiveOneAlone() throws Exception {
    InMemoryKeyStore store = new InMemoryKeyStore();
    IdempotencyEngine engine = engine(store);
    AtomicInteger runs = new AtomicInteger();
    Operation<StoredResponse> finish =
        e -> {
          runs.incrementAndGet();
          return StoredResponse.ofUtf8(201, "resumed from " + e.resumeFrom().orElseThrow().name());
        };
    KeyStoreAdmin admin =
        KeyStoreAdmin.builder(engine).resumer(record -> Optional.of(finish)).build();
    RecordId id = RecordId.of("s", "half-done");
    ClaimOutcome.Claimed owner = claim(store, id);
    store.checkpoint(id, owner.fence(), RecoveryPoint.of("charged"), clock.instant(), LEASE);

    assertThat(admin.redrive(id).status()).isEqualTo(KeyStoreAdmin.Status.LEASE_LIVE);
    assertThat(runs).as("runs while the owner's lease is live").hasValue(0);
    clock.advance(LEASE);
    KeyStoreAdmin.Result result = admin.redrive(id);

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.REDRIVEN);
    assertThat(runs).hasValue(1);
    assertThat(store.lookup(id).orElseThrow().response())
        .get()
        .extracting(StoredResponse::bodyAsUtf8)
        .isEqualTo("resumed from charged");
    assertThat(admin.redrive(id).status()).isEqualTo(KeyStoreAdmin.Status.COMPLETE);
    assertThat(admin.redrive(RecordId.of("s", "none")).status())
        .isEqualTo(KeyStoreAdmin.Status.NOT_FOUND);
    assertThat(runs).hasValue(1);
  }

  @Test
  void redriveWithoutAResumerSaysHowToGiveOne() {
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(new InMemoryKeyStore())).build();
    assertThatThrownBy(() -> admin.redrive(RecordId.of("s", "k")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("resumer(");
  }

  @Test
  void listPagesThroughTheAbandonedRecordsOfOneScope() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    for (int i = 0; i < 5; i++) {
      ClaimOutcome.Claimed c = claim(store, RecordId.of("a", "k" + i));
      if (i % 2 == 0) {
        store.checkpoint(
            RecordId.of("a", "k" + i), c.fence(), RecoveryPoint.of("p"), clock.instant(), LEASE);
      }
      claim(store, RecordId.of("b", "k" + i));
    }
    clock.advance(LEASE);
    claim(store, RecordId.of("a", "live"));

    List<RecordId> listed = new ArrayList<>();
    RecordQuery query =
        admin.query(RecordSelection.ABANDONED_WITH_RECOVERY_POINT, 2).inScope(Scope.of("a"));
    int pages = 0;
    while (true) {
      RecordPage page = admin.list(query);
      pages++;
      assertThat(page.records()).hasSizeLessThanOrEqualTo(2);
      page.records().forEach(r -> listed.add(r.id()));
      if (page.next().isEmpty()) {
        break;
      }
      query = query.after(page.next().get());
    }
    assertThat(listed)
        .containsExactly(RecordId.of("a", "k0"), RecordId.of("a", "k2"), RecordId.of("a", "k4"));
    assertThat(pages).isEqualTo(2);
  }

  @Test
  void listOnAStoreWithoutListingNamesTheStore() {
    KeyStore store = new ForwardingKeyStore(new InMemoryKeyStore());
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    assertThatThrownBy(() -> admin.list(admin.query(RecordSelection.ABANDONED, 10)))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(ForwardingKeyStore.class.getName())
        .hasMessageContaining("LISTING");
  }

  @Test
  void extendKeepsAnAbandonedRecordPastRetentionAndChangesNothingElse() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "stuck");
    ClaimOutcome.Claimed owner = claim(store, id);
    store.checkpoint(id, owner.fence(), RecoveryPoint.of("charged"), clock.instant(), LEASE);
    clock.advance(LEASE);
    Optional<RecordSnapshot> before = store.lookup(id);
    Instant abandonedAt = clock.instant();

    KeyStoreAdmin.Result result =
        admin.extend(id, Duration.ofDays(7), "waits for the fix of ticket 4711");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.EXTENDED);
    assertThat(result.done()).isTrue();
    assertThat(result.detail())
        .contains(abandonedAt.plus(Duration.ofDays(7)).toString())
        .contains("ticket 4711");
    assertThat(store.lookup(id)).as("the record after the extension").isEqualTo(before);
    assertThat(store.findAbandoned(clock.instant(), 10))
        .as("the completer still finds it abandoned")
        .extracting(RecordSnapshot::id)
        .containsExactly(id);
    Duration retention = IdempotencyConfig.DEFAULT_RETENTION;
    assertThat(store.deleteExpired(abandonedAt.plus(retention), retention, 10))
        .as("the reaper once the retention passed")
        .isZero();
    assertThat(store.deleteExpired(abandonedAt.plus(Duration.ofDays(7)), retention, 10))
        .as("the reaper at the instant the record was kept until")
        .isEqualTo(1);
    assertThat(store.lookup(id)).isEmpty();
    assertThat(events).isEmpty();
  }

  @Test
  void extendUnderALiveLeaseLeavesTheOwnerAtWork() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "busy");
    ClaimOutcome.Claimed owner = claim(store, id);
    Optional<RecordSnapshot> before = store.lookup(id);

    KeyStoreAdmin.Result result =
        admin.extend(id, clock.instant().plus(Duration.ofDays(5)), "audit 17");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.EXTENDED);
    assertThat(store.lookup(id)).isEqualTo(before);
    store.complete(id, owner.fence(), StoredResponse.ofUtf8(200, "done"), clock.instant());
    assertThat(store.lookup(id)).get().extracting(RecordSnapshot::fence).isEqualTo(owner.fence());
  }

  @Test
  void extendOfAMissingRecordCreatesNothing() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "none");

    KeyStoreAdmin.Result result = admin.extend(id, Duration.ofDays(1), "audit 17");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.NOT_FOUND);
    assertThat(result.done()).isFalse();
    assertThat(store.lookup(id)).isEmpty();
    assertThat(store.size()).isZero();
  }

  @Test
  void extendAfterATakeoverSinceTheLookChangesNothing() {
    InMemoryKeyStore inner = new InMemoryKeyStore();
    RecordId id = RecordId.of("s", "raced");
    claim(inner, id);
    clock.advance(LEASE);
    // the completer takes the record over between the admin's look and its extension
    KeyStore store =
        new DelegatingStore(inner) {
          @Override
          public Optional<RecordSnapshot> lookup(RecordId which) {
            Optional<RecordSnapshot> seen = super.lookup(which);
            if (seen.isPresent() && seen.get().fence().equals(FenceToken.of(1))) {
              KeyStoreAdminTest.this.claim(inner, which);
            }
            return seen;
          }
        };
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();

    KeyStoreAdmin.Result result = admin.extend(id, Duration.ofDays(7), "ticket 4711");

    assertThat(result.status()).isEqualTo(KeyStoreAdmin.Status.CHANGED);
    RecordSnapshot now = inner.lookup(id).orElseThrow();
    assertThat(now.fence()).isEqualTo(FenceToken.of(2));
    Duration retention = IdempotencyConfig.DEFAULT_RETENTION;
    assertThat(
            inner.deleteExpired(now.leaseExpiresAt().orElseThrow().plus(retention), retention, 10))
        .as("the reaper: the newer owner's record was not kept")
        .isEqualTo(1);
  }

  @Test
  void extendRefusesAnInstantNotAfterNowABadReasonAndAStoreWithoutTheCapability() {
    InMemoryKeyStore store = new InMemoryKeyStore();
    KeyStoreAdmin admin = KeyStoreAdmin.builder(engine(store)).build();
    RecordId id = RecordId.of("s", "k");
    claim(store, id);
    assertThatThrownBy(() -> admin.extend(id, clock.instant(), "audit"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("after now");
    assertThatThrownBy(() -> admin.extend(id, Duration.ZERO, "audit"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> admin.extend(id, Duration.ofDays(1), "two\nlines"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one line");
    KeyStore plain = new ForwardingKeyStore(store);
    KeyStoreAdmin plainAdmin = KeyStoreAdmin.builder(engine(plain)).build();
    assertThatThrownBy(() -> plainAdmin.extend(id, Duration.ofDays(1), "audit"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(ForwardingKeyStore.class.getName())
        .hasMessageContaining("EXTEND_RETENTION");
  }

  /** A store that forwards the SPI's abstract methods and declares no capability. */
  private static class ForwardingKeyStore implements KeyStore {
    private final KeyStore inner;

    ForwardingKeyStore(KeyStore inner) {
      this.inner = inner;
    }

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
      return inner.claim(request);
    }

    @Override
    public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
      inner.heartbeat(id, fence, now, lease);
    }

    @Override
    public void checkpoint(
        RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
      inner.checkpoint(id, fence, point, now, lease);
    }

    @Override
    public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
      inner.complete(id, fence, response, now);
    }

    @Override
    public void release(RecordId id, FenceToken fence, Instant now) {
      inner.release(id, fence, now);
    }

    @Override
    public Optional<RecordSnapshot> lookup(RecordId id) {
      return inner.lookup(id);
    }

    @Override
    public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
      return inner.findAbandoned(now, limit);
    }

    @Override
    public int deleteExpired(Instant now, Duration retention, int limit) {
      return inner.deleteExpired(now, retention, limit);
    }
  }
}
