package dev.idempotency.servlet;

import static dev.idempotency.servlet.ContractOverHttpTest.assertProblem;
import static dev.idempotency.servlet.ContractOverHttpTest.member;
import static dev.idempotency.servlet.ContractOverHttpTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.http.OversizedResponse;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStoreBuilder;
import dev.idempotency.testing.TestDatabases;
import jakarta.servlet.Filter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests in one transaction ({@link EndpointRule#inOneTransaction()}), as the handler's default
 * rule runs them on the JDBC store, over the filter in a real Jetty on a real database: the
 * application's order row, the claim and the stored response commit together, once; a replay, a
 * mismatch, a duplicate while the first is open, a handler that throws and the storing rules give
 * the HTTP answers of the stepped lifecycle. Each test has its own tables and its own server. One
 * subclass per database, each a few lines.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class OneTransactionOverHttpContract {
  private static final String BODY = "{\"item\":42}";
  private static final String OTHER_BODY = "{\"item\":43}";
  private static final int RACERS = 16;

  private final String suffix =
      Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  private final String recordsTable = "otx_rec_" + suffix;
  private final String ordersTable = "otx_orders_" + suffix;

  /** What the store does with its connections, counted. */
  private final TransactionCounter counter = new TransactionCounter();

  /** Counted down by each request as it reaches the server, before any filter. */
  private volatile CountDownLatch arrivals = new CountDownLatch(0);

  private HikariDataSource pool;
  private HikariDataSource outside;
  private JdbcKeyStore outsideStore;
  private IdempotencyEngine engine;
  private FilteredTestApp server;
  private OneTransactionOrdersApp app;

  /** The database; each test creates and drops its own tables in it. */
  protected abstract TestDatabases database();

  /** What a test changes of the store, the engine and the handler. */
  private record Settings(
      UnaryOperator<JdbcKeyStoreBuilder> store,
      UnaryOperator<IdempotencyConfig.Builder> engine,
      UnaryOperator<IdempotencyHttpBuilder> http) {
    static Settings defaults() {
      return new Settings(s -> s, e -> e, h -> h);
    }
  }

  private FilteredTestApp start(Settings settings) throws Exception {
    String url = database().url(); // for H2 a database of its own: both pools must share it
    // RACERS duplicates each hold a connection while they wait on the first one's lock
    pool = database().pool(url, RACERS + 4);
    outside = database().pool(url, 2);
    JdbcKeyStore store =
        settings
            .store()
            .apply(
                JdbcKeyStore.builder(counter.wrap(pool))
                    .tableName(recordsTable)
                    .createSchemaIfMissing())
            .build();
    outsideStore = JdbcKeyStore.builder(outside).tableName(recordsTable).build();
    OneTransactionOrdersApp.createOrders(outside, ordersTable);
    engine =
        IdempotencyEngine.builder(store)
            .config(settings.engine().apply(IdempotencyConfig.builder()).build())
            .build();
    // the handler's default rule (POST and PATCH on every path), which chose no lifecycle: on the
    // JDBC store it runs in one transaction, and these tests fail if it does not
    IdempotencyHttp http = settings.http().apply(IdempotencyHttp.builder(engine)).build();
    app = new OneTransactionOrdersApp(ordersTable, outside, outsideStore);
    Filter countArrivals =
        (req, res, chain) -> {
          arrivals.countDown();
          chain.doFilter(req, res);
        };
    server = new FilteredTestApp(app, countArrivals, http);
    counter.reset(); // the schema's statements are not a request's
    return server;
  }

  @AfterEach
  void stop() throws Exception {
    if (app != null && app.hold != null) {
      app.hold.countDown(); // a failed test must not leave a run held
    }
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (outside != null) {
      try (Connection c = outside.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + ordersTable);
        st.execute("DROP TABLE IF EXISTS " + recordsTable);
        if (database() == TestDatabases.POSTGRES) {
          st.execute("DROP SEQUENCE IF EXISTS " + recordsTable + "_fence_seq");
        }
      }
      outside.close();
    }
    if (pool != null) {
      pool.close();
    }
  }

  private int orders(String key) throws Exception {
    return OneTransactionOrdersApp.orders(outside, ordersTable, key);
  }

  private Optional<RecordSnapshot> record(String key) {
    return outsideStore.lookup(RecordId.of("alice", key));
  }

  private static boolean replayed(HttpResponse<byte[]> r) {
    return r.headers().firstValue(IdempotencyHttp.REPLAYED_HEADER).isPresent();
  }

  private static boolean inFlight(HttpResponse<byte[]> r) {
    return r.statusCode() == 409
        && "idempotency_request_in_flight".equals(member(r, "code"))
        && r.headers().firstValue("Retry-After").isPresent();
  }

  /**
   * While the application runs, another connection sees neither its order nor the key's record;
   * afterwards both, from one connection and one commit, with no write committed on its own. A
   * store that committed its claim first, or the order apart from the record, fails here.
   */
  @Test
  void aFreshRequestCommitsItsOrderAndItsRecordWithOneCommit() throws Exception {
    FilteredTestApp s = start(Settings.defaults());

    HttpResponse<byte[]> r = s.post("/orders", "fresh-1", BODY);

    assertThat(r.statusCode()).as(text(r)).isEqualTo(201);
    assertThat(replayed(r)).isFalse();
    assertThat(member(r, "ordersSeenOutside")).as("the order, seen while open").isEqualTo("0");
    assertThat(member(r, "recordSeenOutside")).as("the record, seen while open").isEqualTo("false");
    assertThat(counter)
        .as("what the store did")
        .hasToString("connections=1 commits=1 autoCommittedWrites=0");
    assertThat(orders("fresh-1")).as("orders after").isEqualTo(1);
    assertThat(record("fresh-1"))
        .hasValueSatisfying(rec -> assertThat(rec.state()).isEqualTo(KeyState.COMPLETE));
  }

  /**
   * A retry gets the first response byte for byte, with the allowlisted headers only; the
   * application does not run again.
   */
  @Test
  void aRetryReplaysTheFirstResponseByteForByte() throws Exception {
    FilteredTestApp s = start(Settings.defaults());
    HttpResponse<byte[]> first = s.post("/orders", "replay-1", BODY);
    HttpResponse<byte[]> retry = s.post("/orders", "replay-1", BODY);

    assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
    assertThat(first.headers().firstValue("Set-Cookie"))
        .as("the first caller's cookie")
        .isPresent();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"))
        .hasValue("/orders/replay-1");
    assertThat(retry.headers().firstValue("Content-Type"))
        .isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(retry.headers().firstValue("Set-Cookie")).as("Set-Cookie is not stored").isEmpty();
    assertThat(retry.headers().firstValue("X-Internal")).as("outside the allowlist").isEmpty();
    assertThat(app.runs).hasValue(1);
    assertThat(orders("replay-1")).isEqualTo(1);
  }

  /**
   * The storedHeaders allowlist and the bodyRedactor shape what is committed, as in the default
   * lifecycle; the first caller gets the application's response whole.
   */
  @Test
  void theStoringRulesShapeTheCommittedResponse() throws Exception {
    FilteredTestApp s =
        start(
            new Settings(
                st -> st,
                e -> e,
                h ->
                    h.storedHeaders("Content-Type", "X-Internal")
                        .bodyRedactor(
                            stored ->
                                stored
                                    .bodyAsUtf8()
                                    .replace("\"run\":1", "\"run\":\"redacted\"")
                                    .getBytes(StandardCharsets.UTF_8))));
    HttpResponse<byte[]> first = s.post("/orders", "rules-1", BODY);
    HttpResponse<byte[]> retry = s.post("/orders", "rules-1", BODY);

    assertThat(member(first, "run")).isEqualTo("1");
    assertThat(first.headers().firstValue("Location")).isPresent();
    assertThat(member(retry, "run")).isEqualTo("redacted");
    assertThat(retry.headers().firstValue("X-Internal")).hasValue("secret-1");
    assertThat(retry.headers().firstValue("Location")).as("not allowlisted here").isEmpty();
    assertThat(app.runs).hasValue(1);
  }

  /**
   * {@value #RACERS} identical requests at once, the first held with its transaction open until all
   * of them reached the server: one order, one run; every other answer is the byte-identical replay
   * or the in-flight 409. A claim that did not wait for the open transaction would run the
   * application again, and commit another order.
   */
  @Test
  void concurrentDuplicatesCommitOneOrder() throws Exception {
    FilteredTestApp s = start(Settings.defaults());
    CountDownLatch allArrived = new CountDownLatch(RACERS);
    arrivals = allArrived;
    app.hold = allArrived;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService clients = Executors.newFixedThreadPool(RACERS);
    List<HttpResponse<byte[]>> responses = new ArrayList<>();
    try {
      List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        futures.add(
            clients.submit(
                () -> {
                  go.await();
                  return s.post("/orders", "race-1", BODY);
                }));
      }
      go.countDown();
      for (Future<HttpResponse<byte[]>> f : futures) {
        responses.add(f.get(50, TimeUnit.SECONDS));
      }
    } finally {
      clients.shutdownNow();
      assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).as("clients ended").isTrue();
    }

    assertThat(app.runs).as("application runs").hasValue(1);
    assertThat(orders("race-1")).as("orders").isEqualTo(1);
    List<HttpResponse<byte[]>> originals =
        responses.stream().filter(r -> r.statusCode() == 201 && !replayed(r)).toList();
    assertThat(originals).as("first answers").hasSize(1);
    byte[] original = originals.get(0).body();
    for (HttpResponse<byte[]> r : responses) {
      if (r != originals.get(0)) {
        boolean replay = r.statusCode() == 201 && replayed(r) && Arrays.equals(r.body(), original);
        assertThat(replay || inFlight(r)).as("%s %s", r.statusCode(), text(r)).isTrue();
      }
    }
  }

  /**
   * A duplicate that arrives while the first holds its transaction open waits on the record's lock
   * up to the store's statement timeout (1 s here), then gets the in-flight 409 with Retry-After;
   * once the first commits, a retry replays it.
   */
  @Test
  void aDuplicateWhileTheFirstIsOpenGetsTheInFlight409() throws Exception {
    FilteredTestApp s =
        start(new Settings(st -> st.statementTimeout(Duration.ofSeconds(1)), e -> e, h -> h));
    app.hold = new CountDownLatch(1);
    app.inserted = new CountDownLatch(1);
    ExecutorService firstClient = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<byte[]>> first =
          firstClient.submit(() -> s.post("/orders", "open-1", BODY));
      assertThat(app.inserted.await(30, TimeUnit.SECONDS)).as("the first run inserted").isTrue();

      HttpResponse<byte[]> duplicate = s.post("/orders", "open-1", BODY);
      assertProblem(duplicate, 409, "idempotency_request_in_flight", true);
      assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();

      app.hold.countDown();
      HttpResponse<byte[]> firstAnswer = first.get(30, TimeUnit.SECONDS);
      assertThat(firstAnswer.statusCode()).as(text(firstAnswer)).isEqualTo(201);
      HttpResponse<byte[]> retry = s.post("/orders", "open-1", BODY);
      assertThat(replayed(retry)).isTrue();
      assertThat(retry.body()).isEqualTo(firstAnswer.body());
    } finally {
      app.hold.countDown();
      firstClient.shutdownNow();
      assertThat(firstClient.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(app.runs).hasValue(1);
    assertThat(orders("open-1")).isEqualTo(1);
  }

  /** The same key with another body: 409 {@code idempotency_key_reused}; nothing runs. */
  @Test
  void theSameKeyWithAnotherBodyIsRefused() throws Exception {
    FilteredTestApp s = start(Settings.defaults());
    assertThat(s.post("/orders", "mismatch-1", BODY).statusCode()).isEqualTo(201);

    HttpResponse<byte[]> other = s.post("/orders", "mismatch-1", OTHER_BODY);

    assertProblem(other, 409, "idempotency_key_reused", false);
    assertThat(app.runs).hasValue(1);
    assertThat(orders("mismatch-1")).isEqualTo(1);
  }

  /**
   * A handler that throws after its insert: the container's 500, and neither the order nor the
   * record remains. The retry runs as a first attempt (not a replay, not a takeover) and commits
   * one order.
   */
  @Test
  void aHandlerThatThrowsLeavesNeitherOrderNorRecord() throws Exception {
    FilteredTestApp s = start(Settings.defaults());
    app.failNextRun.set(true);

    HttpResponse<byte[]> failed = s.post("/orders", "throws-1", BODY);

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(orders("throws-1")).as("orders after the failure").isZero();
    assertThat(record("throws-1")).as("the record after the failure").isEmpty();

    HttpResponse<byte[]> retry = s.post("/orders", "throws-1", BODY);
    assertThat(retry.statusCode()).as(text(retry)).isEqualTo(201);
    assertThat(replayed(retry)).isFalse();
    assertThat(member(retry, "run")).as("the retry's run").isEqualTo("2");
    assertThat(orders("throws-1")).isEqualTo(1);
  }

  /**
   * A response over maxStoredResponseBytes: the not-stored marker commits with the order, whatever
   * oversizedResponse says (releasing the key would let a retry repeat the committed order), and
   * even though the engine's policy excludes the marker's own status, 500: it judges the
   * application's 201. The first caller gets the response whole; the retry the marker.
   */
  @Test
  void anOversizedResponseCommitsTheMarkerWithTheOrder() throws Exception {
    FilteredTestApp s =
        start(
            new Settings(
                st -> st,
                e -> e.storedResponsePolicy(StoredResponsePolicy.storeAllExcept(500, 502, 503)),
                h ->
                    h.maxStoredResponseBytes(1024)
                        .oversizedResponse(OversizedResponse.RELEASE_KEY)));

    HttpResponse<byte[]> first = s.post("/orders?size=2000", "big-1", BODY);
    HttpResponse<byte[]> retry = s.post("/orders?size=2000", "big-1", BODY);

    assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
    assertThat(first.body()).hasSize(2000);
    assertThat(retry.statusCode()).as(text(retry)).isEqualTo(500);
    assertThat(member(retry, "code")).isEqualTo("idempotency_response_not_stored");
    assertThat(member(retry, "retryable")).isEqualTo("false");
    assertThat(replayed(retry)).as("the marker is a replay").isTrue();
    assertThat(app.runs).hasValue(1);
    assertThat(orders("big-1")).isEqualTo(1);
  }

  /**
   * A response whose status the engine's policy excludes rolls the whole transaction back, the
   * order with the claim: the caller gets it, and the retry runs anew.
   */
  @Test
  void aResponseThePolicyExcludesRollsTheOrderBack() throws Exception {
    FilteredTestApp s =
        start(
            new Settings(
                st -> st,
                e -> e.storedResponsePolicy(StoredResponsePolicy.storeAllExcept(503)),
                h -> h));

    HttpResponse<byte[]> first = s.post("/orders?status=503", "excluded-1", BODY);

    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(member(first, "run")).as("the application's own answer").isEqualTo("1");
    assertThat(orders("excluded-1")).isZero();
    assertThat(record("excluded-1")).isEmpty();
    HttpResponse<byte[]> retry = s.post("/orders?status=503", "excluded-1", BODY);
    assertThat(member(retry, "run")).as("the retry ran anew").isEqualTo("2");
  }
}
