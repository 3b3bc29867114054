package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.spi.ClaimRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The store when DynamoDB will not answer: throttled (through {@link DynamoFront}, which answers
 * DynamoDB's throttling error, since dynalite never throttles) and gone (a dynalite of the test's
 * own, killed with {@code kill -9} mid-request and started again on its data). In both the store
 * answers {@link StoreUnavailableException} within its call timeout, the engine fails closed (the
 * operation does not run), a completion it could not write is retried and stored once the store
 * answers again within the lease, and nothing runs twice.
 */
class DynamoDbFaultsIT {
  private static final Fingerprint FP = Fingerprint.of(new byte[] {7});
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static StoredResponse run(AtomicInteger runs, String what) {
    runs.incrementAndGet();
    return StoredResponse.ofUtf8(201, what);
  }

  @Test
  void throttlingIsUnavailableTheEngineFailsClosedAndNothingRunsTwice() throws Exception {
    String table = Dynalite.table("throttled");
    AtomicInteger runs = new AtomicInteger();
    try (DynamoDbClient direct = Dynalite.client();
        DynamoFront front = DynamoFront.start(Dynalite.endpoint());
        DynamoDbClient client = Dynalite.client(front.uri());
        DynamoDbKeyStore store =
            DynamoDbKeyStore.builder(client)
                .tableName(table)
                .callTimeout(Duration.ofSeconds(2))
                .createTableIfMissing()
                .build();
        IdempotencyEngine engine =
            IdempotencyEngine.builder(store)
                .config(IdempotencyConfig.builder().lease(LEASE).build())
                .build()) {
      ScheduledExecutorService lift = Executors.newSingleThreadScheduledExecutor();
      try {
        RecordId id = RecordId.of("s", "throttled");
        front.throttle(op -> op.equals("UpdateItem"));
        Outcome refused = engine.execute(id, FP, Work.stepped(e -> run(runs, "first")));
        assertThat(refused).isInstanceOf(Outcome.StoreUnavailable.class);
        assertThat(runs).as("the engine fails closed: the operation did not run").hasValue(0);
        assertThat(front.faultCount())
            .as("the SDK retried the throttled claim before giving up")
            .isGreaterThan(1);
        assertThat(store.lookup(id)).as("a refused claim decided nothing").isEmpty();

        // the claim passes, the completion is throttled for a while: the engine retries it while
        // the lease lasts, stores the response once the throttling ends, and a retry replays it
        front.throttle(op -> false);
        Outcome executed =
            engine.execute(
                id,
                FP,
                Work.stepped(
                    e -> {
                      front.throttle(op -> op.equals("UpdateItem"));
                      lift.schedule(() -> front.throttle(op -> false), 1500, TimeUnit.MILLISECONDS);
                      return run(runs, "second");
                    }));
        assertThat(executed).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) executed).stored())
            .as("stored once the throttling ended, within the lease")
            .isTrue();
        assertThat(engine.execute(id, FP, Work.stepped(e -> run(runs, "third"))))
            .isInstanceOf(Outcome.Replayed.class)
            .extracting(o -> ((Outcome.Replayed) o).response().bodyAsUtf8())
            .isEqualTo("second");
        assertThat(runs).hasValue(1);
      } finally {
        lift.shutdownNow();
        Dynalite.drop(direct, table);
      }
    }
  }

  @Test
  void aKilledServerIsUnavailableAndWhatCommittedSurvivesItsRestart() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (DynaliteProcess server = DynaliteProcess.start();
        DynamoDbClient client = Dynalite.client(server.endpoint());
        DynamoDbKeyStore store =
            DynamoDbKeyStore.builder(client)
                .tableName("records")
                .callTimeout(Duration.ofSeconds(2))
                .createTableIfMissing()
                .build();
        IdempotencyEngine engine =
            IdempotencyEngine.builder(store)
                .config(IdempotencyConfig.builder().lease(LEASE).build())
                .build()) {
      RecordId done = RecordId.of("s", "done");
      RecordId midway = RecordId.of("s", "midway");
      Outcome first = engine.execute(done, FP, Work.stepped(e -> run(runs, "done")));
      assertThat(first).isInstanceOf(Outcome.Executed.class);

      // killed while the operation runs: the claim committed, the completion cannot until the
      // server is back; meanwhile the store is unavailable and the engine runs nothing new
      Process killed = server.process();
      CountDownLatch down = new CountDownLatch(1);
      ExecutorService caller = Executors.newSingleThreadExecutor();
      Future<Outcome> cut;
      try {
        cut =
            caller.submit(
                () ->
                    engine.execute(
                        midway,
                        FP,
                        Work.stepped(
                            e -> {
                              server.killDashNine();
                              down.countDown();
                              return run(runs, "midway");
                            })));
        assertThat(down.await(30, TimeUnit.SECONDS)).as("the operation ran").isTrue();
        assertThat(killed.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
        assertThat(
                engine.execute(RecordId.of("s", "down"), FP, Work.stepped(e -> run(runs, "down"))))
            .isInstanceOf(Outcome.StoreUnavailable.class);
        assertThatThrownBy(
                () ->
                    store.claim(
                        new ClaimRequest(done, FP, Instant.now(), LEASE, Duration.ofHours(24))))
            .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> store.lookup(done)).isInstanceOf(StoreUnavailableException.class);
        assertThat(cut).as("the completion waits for the store, within the lease").isNotDone();

        // started again on its data, within the lease: the interrupted completion is stored
        server.restart();
        Outcome finished = cut.get(LEASE.toSeconds(), TimeUnit.SECONDS);
        assertThat(finished).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) finished).stored()).isTrue();
      } finally {
        caller.shutdownNow();
      }
      assertThat(engine.execute(done, FP, Work.stepped(e -> run(runs, "done again"))))
          .isInstanceOf(Outcome.Replayed.class)
          .extracting(o -> ((Outcome.Replayed) o).response().bodyAsUtf8())
          .isEqualTo("done");
      assertThat(engine.execute(midway, FP, Work.stepped(e -> run(runs, "midway again"))))
          .isInstanceOf(Outcome.Replayed.class)
          .extracting(o -> ((Outcome.Replayed) o).response().bodyAsUtf8())
          .isEqualTo("midway");
      assertThat(runs).as("nothing ran twice").hasValue(2);
    }
  }
}
