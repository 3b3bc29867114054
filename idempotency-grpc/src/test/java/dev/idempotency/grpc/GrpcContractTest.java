package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.caller;
import static dev.idempotency.grpc.GrpcServers.callerAndKey;
import static dev.idempotency.grpc.GrpcTestCalls.assertRefusal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.RecordId;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.grpc.GrpcTestCalls.RawAnswer;
import dev.idempotency.grpc.GrpcTestCalls.Refused;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.GetChargeRequest;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.Dialect;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.Http2ResponseCuttingProxy;
import dev.idempotency.testing.LoopbackPorts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The gRPC contract, row by row, over a real Netty server on loopback: each test names the row of
 * docs/grpc.md's status table it proves.
 *
 * <p>One class: the table's rows in its order, each test a screenful over the one fixture ({@link
 * GrpcFixture}); split by row groups, the table's proof would be scattered over files that share
 * everything but their names. The seams, should it grow: refusals before the engine, the engine's
 * answers, and time (deadlines, leases).
 */
class GrpcContractTest {
  private static final ChargeRequest CHARGE =
      ChargeRequest.newBuilder().setOrderId("4711").setAmountCents(4200).build();

  @Test
  void retryGetsTheByteIdenticalReplayWithTheStoredTrailersOnly() throws Exception {
    try (GrpcFixture f = GrpcFixture.start(b -> b.storedMetadata("x-charge-region"))) {
      byte[] request =
          CHARGE.toBuilder()
              .putLabels("channel", "web")
              .putLabels("tier", "gold")
              .build()
              .toByteArray();
      RawAnswer first = GrpcTestCalls.rawCharge(f.channel, callerAndKey("acct-1", "k-1"), request);
      RawAnswer retry = GrpcTestCalls.rawCharge(f.channel, callerAndKey("acct-1", "k-1"), request);

      assertThat(f.payments.runs("4711")).isEqualTo(1);
      assertThat(retry.message()).isEqualTo(first.message());
      assertThat(ChargeReply.parseFrom(retry.message()).getChargeId()).isEqualTo("ch-4711-1");
      assertThat(first.trailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isNull();
      assertThat(retry.trailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER)).isEqualTo("true");
      // the first caller gets every piece of metadata; the replay only what is stored
      assertThat(first.headers().get(GrpcServers.SERVED_BY_HEADER)).isEqualTo("node-1");
      assertThat(first.trailers().get(GrpcServers.REGION_TRAILER)).isEqualTo("eu-1");
      assertThat(retry.trailers().get(GrpcServers.REGION_TRAILER)).isEqualTo("eu-1");
      assertThat(retry.headers().get(GrpcServers.SERVED_BY_HEADER)).isNull();
      assertThat(f.payments.runsWithoutExecution).hasValue(0);
    }
  }

  @Test
  void aResponseLostInTransitAfterTheHandlerCommittedIsReplayedToTheRetry() throws Exception {
    try (GrpcFixture f = GrpcFixture.start();
        Http2ResponseCuttingProxy proxy = Http2ResponseCuttingProxy.start(f.server.port())) {
      proxy.cutResponses(n -> n == 0);
      ManagedChannel viaProxy = GrpcServers.channel(proxy.port(), b -> b);
      try {
        PaymentServiceGrpc.PaymentServiceBlockingStub stub =
            PaymentServiceGrpc.newBlockingStub(viaProxy)
                .withInterceptors(
                    io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(
                        callerAndKey("acct-1", "k-lost")))
                .withDeadlineAfter(10, TimeUnit.SECONDS);
        StatusRuntimeException lost =
            catchThrowableOfType(StatusRuntimeException.class, () -> stub.charge(CHARGE));
        assertThat(lost.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(proxy.cuts()).isEqualTo(1);
        assertThat(f.payments.runs("4711")).isEqualTo(1); // it ran; its answer was lost

        ChargeReply retried = stub.charge(CHARGE);

        assertThat(retried.getChargeId()).isEqualTo("ch-4711-1");
        assertThat(retried.getRun()).isEqualTo(1);
        assertThat(f.payments.runs("4711")).isEqualTo(1);
        assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.Replayed.class)).isEqualTo(1);
      } finally {
        GrpcServers.close(viaProxy);
      }
    }
  }

  @Test
  void aCallerWhoseDeadlinePassedWhileTheHandlerRanGetsTheStoredAnswerOnItsRetry()
      throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest slow = CHARGE.toBuilder().setHoldMillis(700).build();
      StatusRuntimeException gaveUp =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  f.stub(callerAndKey("acct-1", "k-slow-handler"))
                      .withDeadlineAfter(200, TimeUnit.MILLISECONDS)
                      .charge(slow));
      assertThat(gaveUp.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      awaitEvent(f, dev.idempotency.event.IdempotencyEvent.Completed.class);

      ChargeReply retry = f.stub(callerAndKey("acct-1", "k-slow-handler")).charge(slow);

      assertThat(retry.getRun()).isEqualTo(1);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void sameKeyWithAnotherPayloadIsFailedPreconditionKeyReused() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      f.stub(callerAndKey("acct-1", "k-2")).charge(CHARGE);
      ChargeRequest other = CHARGE.toBuilder().setAmountCents(9900).build();

      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k-2")).charge(other),
              IdempotencyErrorReason.IDEMPOTENCY_KEY_REUSED);

      assertThat(r.status().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(r.info().getMetadataMap())
          .containsEntry("method", "idempotency.test.PaymentService/Charge");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void sameKeyOnAnotherMethodIsAMismatch() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      f.payments.ledger(null);
      f.stub(callerAndKey("acct-1", "k-3")).charge(CHARGE);

      assertRefusal(
          () -> f.stub(callerAndKey("acct-1", "k-3")).chargeAndRecord(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_KEY_REUSED);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void sameKeyFromAnotherCallerIsANewRequest() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      f.stub(callerAndKey("acct-1", "k-4")).charge(CHARGE);
      ChargeReply other = f.stub(callerAndKey("acct-2", "k-4")).charge(CHARGE);

      assertThat(other.getRun()).isEqualTo(2);
      assertThat(f.payments.runs("4711")).isEqualTo(2);
    }
  }

  @Test
  void aRetryWhileTheFirstCallRunsIsAbortedWithRetryInfoAndPushback() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        Future<ChargeReply> first =
            caller.submit(
                () ->
                    f.stub(callerAndKey("acct-1", "k-5"))
                        .charge(CHARGE.toBuilder().setHoldMillis(-1).build()));
        awaitRuns(f, "4711", 1);

        Refused r =
            assertRefusal(
                () ->
                    f.stub(callerAndKey("acct-1", "k-5"))
                        .charge(CHARGE.toBuilder().setHoldMillis(-1).build()),
                IdempotencyErrorReason.IDEMPOTENCY_REQUEST_IN_FLIGHT);
        assertThat(r.status().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(r.retryDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(
                r.trailers()
                    .get(
                        Metadata.Key.of(
                            "grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER)))
            .isEqualTo("1000");

        gate.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        assertThat(f.payments.runs("4711")).isEqualTo(1);
      } finally {
        gate.countDown();
        shutDown(caller);
      }
    }
  }

  @Test
  void theEnginesBoundedWaitEndsInTheReplay() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    KeyStore counting =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            claims.incrementAndGet();
            return outcome;
          }
        };
    try (GrpcFixture f =
        new GrpcFixture(
            counting,
            8,
            e ->
                e.inFlightPolicy(
                    InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(20))),
            c -> c)) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ExecutorService callers = Executors.newFixedThreadPool(2);
      try {
        ChargeRequest held = CHARGE.toBuilder().setHoldMillis(-1).build();
        Future<ChargeReply> first =
            callers.submit(() -> f.stub(callerAndKey("acct-1", "k-6")).charge(held));
        awaitRuns(f, "4711", 1);
        Future<ChargeReply> second =
            callers.submit(() -> f.stub(callerAndKey("acct-1", "k-6")).charge(held));
        // the second call's first claim found the key in flight: it is in the engine's wait now
        awaitCount(claims, 2);
        gate.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        assertThat(second.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        assertThat(f.payments.runs("4711")).isEqualTo(1);
        assertThat(claims.get()).as("the waiting call claimed again").isGreaterThanOrEqualTo(3);
        assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.Replayed.class)).isEqualTo(1);
        assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.InFlightConflict.class))
            .isZero();
      } finally {
        gate.countDown();
        shutDown(callers);
      }
    }
  }

  @Test
  void theInFlightWaitEndsAtTheCallersDeadlineAndFreesItsThread() throws Exception {
    // two call threads: the first call holds one, the waiting duplicate the other; a third call can
    // run only if the duplicate's wait ended at its deadline rather than the engine's 60 s
    try (GrpcFixture f =
        new GrpcFixture(
            new InMemoryKeyStore(),
            2,
            e ->
                e.inFlightPolicy(
                    InFlightPolicy.waitUpTo(Duration.ofSeconds(60), Duration.ofMillis(20))),
            c -> c)) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        ChargeRequest held = CHARGE.toBuilder().setHoldMillis(-1).build();
        Future<ChargeReply> first =
            caller.submit(() -> f.stub(callerAndKey("acct-1", "k-7")).charge(held));
        awaitRuns(f, "4711", 1);

        StatusRuntimeException late =
            catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    f.stub(callerAndKey("acct-1", "k-7"))
                        .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                        .charge(held));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

        ChargeReply third =
            f.stub(callerAndKey("acct-1", "k-other"))
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .charge(CHARGE.toBuilder().setOrderId("4712").build());
        assertThat(third.getRun()).isEqualTo(1);

        gate.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).getRun()).isEqualTo(1);
        assertThat(f.payments.runs("4711")).isEqualTo(1);
      } finally {
        gate.countDown();
        shutDown(caller);
      }
    }
  }

  @Test
  void aCallWhoseDeadlinePassedWhileQueuedIsNeitherClaimedNorRun() throws Exception {
    // one call thread: the second call waits in the executor's queue behind the first, past its
    // deadline; when its turn comes its work must not start (gRPC's server already drops such a
    // call; the binding's own check is proven by the slow-claim test)
    try (GrpcFixture f = new GrpcFixture(new InMemoryKeyStore(), 1, e -> e, c -> c)) {
      CountDownLatch gate = new CountDownLatch(1);
      f.payments.gate.set(gate);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        Future<ChargeReply> first =
            caller.submit(
                () ->
                    f.stub(callerAndKey("acct-1", "k-8"))
                        .charge(CHARGE.toBuilder().setHoldMillis(-1).build()));
        awaitRuns(f, "4711", 1);
        StatusRuntimeException late =
            catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    f.stub(callerAndKey("acct-1", "k-late"))
                        .withDeadlineAfter(200, TimeUnit.MILLISECONDS)
                        .charge(CHARGE.toBuilder().setOrderId("late").build()));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        gate.countDown();
        first.get(10, TimeUnit.SECONDS);
        // the executor has run the queued call's callbacks once the first call let go of it
        f.stub(callerAndKey("acct-1", "k-after"))
            .charge(CHARGE.toBuilder().setOrderId("after").build());

        assertThat(f.payments.runs("late")).isZero();
        assertThat(f.store.lookup(RecordId.of("acct-1", "k-late"))).isEmpty();
      } finally {
        gate.countDown();
        shutDown(caller);
      }
    }
  }

  @Test
  void aDeadlinePassedDuringASlowClaimStopsTheWorkAndReleasesTheKey() throws Exception {
    // a slow store: the claim succeeds after the caller's deadline has passed
    KeyStore slow =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public ClaimOutcome claim(ClaimRequest request) {
            ClaimOutcome outcome = super.claim(request);
            try {
              Thread.sleep(600);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return outcome;
          }
        };
    try (GrpcFixture f = new GrpcFixture(slow, 4, e -> e, c -> c)) {
      StatusRuntimeException late =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  f.stub(callerAndKey("acct-1", "k-slow"))
                      .withDeadlineAfter(200, TimeUnit.MILLISECONDS)
                      .charge(CHARGE));
      assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      awaitReleased(f, RecordId.of("acct-1", "k-slow"));

      assertThat(f.payments.totalRuns()).isZero();
      assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.Released.class)).isEqualTo(1);
    }
  }

  @Test
  void anOwnerPausedPastItsLeaseAnswersLiveAndTheTakeoverIsWhatRetriesGet() throws Exception {
    // heartbeats that never reach the store: the first owner's 1 s lease lapses while it runs
    KeyStore deaf =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public void heartbeat(
              RecordId id,
              dev.idempotency.FenceToken fence,
              java.time.Instant now,
              Duration lease) {
            throw new dev.idempotency.StoreUnavailableException("heartbeats are lost");
          }

          @Override
          public java.util.Set<RecordId> heartbeatAll(
              java.util.Map<RecordId, dev.idempotency.FenceToken> leases,
              java.time.Instant now,
              Duration lease) {
            throw new dev.idempotency.StoreUnavailableException("heartbeats are lost");
          }
        };
    try (GrpcFixture f = new GrpcFixture(deaf, 4, e -> e.lease(Duration.ofSeconds(1)), c -> c)) {
      ExecutorService caller = Executors.newSingleThreadExecutor();
      try {
        Future<ChargeReply> first =
            caller.submit(
                () ->
                    f.stub(callerAndKey("acct-1", "k-lease"))
                        .charge(CHARGE.toBuilder().setHoldMillis(2500).build()));
        awaitRuns(f, "4711", 1);
        Thread.sleep(1300); // past the first owner's lease
        ChargeReply takeover =
            f.stub(callerAndKey("acct-1", "k-lease"))
                .charge(CHARGE.toBuilder().setHoldMillis(2500).build());
        ChargeReply paused = first.get(20, TimeUnit.SECONDS);
        ChargeReply retry =
            f.stub(callerAndKey("acct-1", "k-lease"))
                .charge(CHARGE.toBuilder().setHoldMillis(2500).build());

        assertThat(paused.getRun()).isEqualTo(1); // its live answer, not stored
        assertThat(takeover.getRun()).isEqualTo(2);
        assertThat(retry).isEqualTo(takeover);
        assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.LeaseLost.class))
            .isGreaterThanOrEqualTo(1);
      } finally {
        shutDown(caller);
      }
    }
  }

  @Test
  void missingKeyIsInvalidArgumentAndTheHandlerDoesNotRun() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      assertRefusal(
          () -> f.stub(caller("acct-1")).charge(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_KEY_MISSING);
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void malformedKeysAreInvalidArgumentWithTheirRule() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      Refused tooLong =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k".repeat(256))).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID);
      assertThat(tooLong.info().getMetadataMap()).containsEntry("rule", "too_long");

      Refused empty =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID);
      assertThat(empty.info().getMetadataMap()).containsEntry("rule", "empty");

      Refused space =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "a b")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID);
      assertThat(space.info().getMetadataMap()).containsEntry("rule", "illegal_character");

      Metadata twice = callerAndKey("acct-1", "k-a");
      twice.put(GrpcIdempotencyMetadata.KEY_HEADER, "k-b");
      Refused sentTwice =
          assertRefusal(
              () -> f.stub(twice).charge(CHARGE), IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID);
      assertThat(sentTwice.info().getMetadataMap()).containsEntry("rule", "multiple_values");

      // the key of 255 characters is the longest accepted, quoted or not
      f.stub(callerAndKey("acct-1", "k".repeat(255))).charge(CHARGE);
      ChargeReply quoted =
          f.stub(callerAndKey("acct-1", "\"" + "k".repeat(255) + "\"")).charge(CHARGE);
      assertThat(quoted.getRun()).isEqualTo(1);
      assertThat(f.payments.totalRuns()).isEqualTo(1);
    }
  }

  @Test
  void aCallWithoutAnAuthenticatedCallerIsUnauthenticated() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      Metadata keyOnly = new Metadata();
      keyOnly.put(GrpcIdempotencyMetadata.KEY_HEADER, "k-9");
      assertRefusal(
          () -> f.stub(keyOnly).charge(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_SCOPE_UNRESOLVED);
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void anUnreachableStoreIsUnavailableWithRetryInfoAndTheHandlerDoesNotRun() throws Exception {
    // the JDBC store, its PostgreSQL address a loopback port nothing listens on
    PGSimpleDataSource unreachable = new PGSimpleDataSource();
    unreachable.setURL("jdbc:postgresql://127.0.0.1:" + LoopbackPorts.closed() + "/idem");
    unreachable.setConnectTimeout(2);
    KeyStore jdbc =
        JdbcKeyStore.builder(unreachable).dialect(Dialect.POSTGRESQL).validateSchema(false).build();
    try (GrpcFixture f = new GrpcFixture(jdbc, 4, e -> e, c -> c)) {
      Refused r =
          assertRefusal(
              () -> f.stub(callerAndKey("acct-1", "k-10")).charge(CHARGE),
              IdempotencyErrorReason.IDEMPOTENCY_STORE_UNAVAILABLE);
      assertThat(r.retryDelay()).isEqualTo(Duration.ofSeconds(5));
      assertThat(
              r.trailers()
                  .get(Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER)))
          .isEqualTo("5000");
      assertThat(f.payments.totalRuns()).isZero();
    }
  }

  @Test
  void safeMethodsPassThroughAndIdempotentOnesTakeAKeyOptionally() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      GetChargeRequest get = GetChargeRequest.newBuilder().setChargeId("c-1").build();
      // NO_SIDE_EFFECTS: never guarded, a key is ignored
      assertThat(f.stub(caller("acct-1")).getCharge(get).getChargeId()).isEqualTo("c-1");
      f.stub(callerAndKey("acct-1", "k-get")).getCharge(get);
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-get"))).isEmpty();
      // IDEMPOTENT: without a key it runs unguarded; with one it is guarded and replayed
      f.stub(caller("acct-1")).captureCharge(get);
      f.stub(callerAndKey("acct-1", "k-cap")).captureCharge(get);
      ChargeReply replayed = f.stub(callerAndKey("acct-1", "k-cap")).captureCharge(get);
      assertThat(replayed.getRun()).isEqualTo(2);
      assertThat(f.payments.runs("c-1")).isEqualTo(2);
      assertThat(f.interceptor.requirementOf(PaymentServiceGrpc.getGetChargeMethod()))
          .isEqualTo(GrpcKeyRequirement.NONE);
      assertThat(f.interceptor.requirementOf(PaymentServiceGrpc.getCaptureChargeMethod()))
          .isEqualTo(GrpcKeyRequirement.OPTIONAL);
      assertThat(f.interceptor.requirementOf(PaymentServiceGrpc.getChargeMethod()))
          .isEqualTo(GrpcKeyRequirement.REQUIRED);
    }
  }

  @Test
  void configurationOverridesTheProtosLevel() throws Exception {
    try (GrpcFixture f =
        GrpcFixture.start(
            b ->
                b.method("idempotency.test.PaymentService/Charge", GrpcKeyRequirement.OPTIONAL)
                    .service("idempotency.test.PaymentService", GrpcKeyRequirement.REQUIRED))) {
      f.stub(caller("acct-1")).charge(CHARGE); // the method's setting wins: optional
      assertRefusal(
          () ->
              f.stub(caller("acct-1"))
                  .captureCharge(GetChargeRequest.newBuilder().setChargeId("c").build()),
          IdempotencyErrorReason.IDEMPOTENCY_KEY_MISSING); // the service's over the proto's
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void streamingMethodsPassThroughUntouched() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      Iterator<ChargeReply> replies =
          f.stub(caller("acct-1"))
              .watchCharges(GetChargeRequest.newBuilder().setChargeId("c-2").build());
      List<Integer> runs = new ArrayList<>();
      replies.forEachRemaining(r -> runs.add(r.getRun()));
      assertThat(runs).containsExactly(1, 2, 3);
    }
  }

  @Test
  void anAnswerFromAnotherThreadIsStoredAndReplayed() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      f.payments.answerFromAnotherThread(true);
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-11")).charge(CHARGE);
      ChargeReply retry = f.stub(callerAndKey("acct-1", "k-11")).charge(CHARGE);
      assertThat(retry).isEqualTo(first);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
      assertThat(f.eventsOf(dev.idempotency.event.IdempotencyEvent.Completed.class)).isEqualTo(1);
    }
  }

  @Test
  void aStoredFailureIsReplayedWithItsStatusAndMessage() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest declined =
          CHARGE.toBuilder().setFailWithCode(Status.Code.FAILED_PRECONDITION.value()).build();
      StatusRuntimeException first =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-12")).charge(declined));
      StatusRuntimeException retry =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-12")).charge(declined));

      assertThat(retry.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(retry.getStatus().getDescription())
          .isEqualTo(first.getStatus().getDescription())
          .isEqualTo("declined: %100 sure");
      assertThat(retry.getTrailers().get(GrpcIdempotencyMetadata.REPLAYED_TRAILER))
          .isEqualTo("true");
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void anUnstoredCodeReleasesTheKeyAndTheRetryRunsAgain() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      ChargeRequest busy =
          CHARGE.toBuilder().setFailWithCode(Status.Code.UNAVAILABLE.value()).build();
      StatusRuntimeException first =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-13")).charge(busy));
      assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-13"))).isEmpty();

      ChargeReply retry = f.stub(callerAndKey("acct-1", "k-13")).charge(CHARGE);
      assertThat(retry.getRun()).isEqualTo(2);
    }
  }

  @Test
  void aHandlerThatThrowsReleasesTheKey() throws Exception {
    try (GrpcFixture f = GrpcFixture.start()) {
      f.payments.ledger(null); // ChargeAndRecord throws a NullPointerException without a ledger
      StatusRuntimeException thrown =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () -> f.stub(callerAndKey("acct-1", "k-14")).chargeAndRecord(CHARGE));
      assertThat(thrown.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-14"))).isEmpty();
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void anOversizedResponseReachesItsCallerAndTheRetryGetsNotStored() throws Exception {
    try (GrpcFixture f = GrpcFixture.start(b -> b.maxStoredResponseBytes(8))) {
      ChargeReply first = f.stub(callerAndKey("acct-1", "k-15")).charge(CHARGE);
      assertThat(first.getChargeId()).isEqualTo("ch-4711-1");

      assertRefusal(
          () -> f.stub(callerAndKey("acct-1", "k-15")).charge(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_RESPONSE_NOT_STORED);
      assertThat(f.payments.runs("4711")).isEqualTo(1);
    }
  }

  @Test
  void aServerOnItsTransportThreadsIsRefusedBeforeAnythingRuns() throws Exception {
    try (GrpcFixture f = new GrpcFixture(new InMemoryKeyStore(), 0, e -> e, c -> c)) {
      assertRefusal(
          () -> f.stub(callerAndKey("acct-1", "k-16")).charge(CHARGE),
          IdempotencyErrorReason.IDEMPOTENCY_BLOCKING_EXECUTOR_REQUIRED);
      assertThat(f.payments.totalRuns()).isZero();
      assertThat(f.store.lookup(RecordId.of("acct-1", "k-16"))).isEmpty();
    }
  }

  static void awaitRuns(GrpcFixture f, String orderId, int runs) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (f.payments.runs(orderId) < runs) {
      if (System.nanoTime() > end) {
        throw new AssertionError("the handler of " + orderId + " did not start within 10 s");
      }
      Thread.sleep(5);
    }
  }

  static void awaitCount(AtomicInteger count, int atLeast) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (count.get() < atLeast) {
      if (System.nanoTime() > end) {
        throw new AssertionError("the count stayed at " + count.get() + " below " + atLeast);
      }
      Thread.sleep(5);
    }
  }

  /** Waits until the claimed record is gone again (the binding released it). */
  static void awaitReleased(GrpcFixture f, RecordId id) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (f.eventsOf(dev.idempotency.event.IdempotencyEvent.Released.class) == 0
        || f.store.lookup(id).isPresent()) {
      if (System.nanoTime() > end) {
        throw new AssertionError(id + " was not released within 10 s");
      }
      Thread.sleep(5);
    }
  }

  static void awaitEvent(
      GrpcFixture f, Class<? extends dev.idempotency.event.IdempotencyEvent> type)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (f.eventsOf(type) == 0) {
      if (System.nanoTime() > end) {
        throw new AssertionError("no " + type.getSimpleName() + " within 10 s");
      }
      Thread.sleep(5);
    }
  }

  static void shutDown(ExecutorService pool) throws InterruptedException {
    pool.shutdownNow();
    if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("a test thread did not end");
    }
  }
}
