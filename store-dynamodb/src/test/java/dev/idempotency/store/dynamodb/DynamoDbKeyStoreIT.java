package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.testing.LoopbackPorts;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The store's own tests on dynalite: the item it writes, the requests each claim outcome costs, the
 * partition key, a missing table, a closed port, and the refusal that carries the item (as
 * DynamoDB's does) through {@link DynamoFront}.
 */
class DynamoDbKeyStoreIT {
  private static final Instant T0 = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(24);
  private static final Fingerprint FP_A = Fingerprint.of(new byte[] {1, 2, 3});
  private static final Fingerprint FP_B = Fingerprint.of(new byte[] {4, 5, 6});

  private final List<String> operations = new CopyOnWriteArrayList<>();
  private DynamoDbClient client;
  private DynamoDbClient counted;
  private DynamoDbKeyStore store;
  private String table;

  @BeforeEach
  void setUp() {
    client = Dynalite.client();
    counted = countingClient(Dynalite.endpoint());
    table = Dynalite.table("store");
    store = DynamoDbKeyStore.builder(counted).tableName(table).createTableIfMissing().build();
  }

  @AfterEach
  void tearDown() {
    store.close();
    Dynalite.drop(client, table);
    counted.close();
    client.close();
  }

  private DynamoDbClient countingClient(URI endpoint) {
    DynamoDbClient plain = Dynalite.client(endpoint);
    ExecutionInterceptor count =
        new ExecutionInterceptor() {
          @Override
          public void beforeTransmission(
              Context.BeforeTransmission context, ExecutionAttributes attributes) {
            operations.add(context.request().getClass().getSimpleName().replace("Request", ""));
          }
        };
    DynamoDbClient c =
        DynamoDbClient.builder()
            .endpointOverride(endpoint)
            .region(plain.serviceClientConfiguration().region())
            .credentialsProvider(plain.serviceClientConfiguration().credentialsProvider())
            .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
            .overrideConfiguration(o -> o.addExecutionInterceptor(count))
            .build();
    plain.close();
    return c;
  }

  private ClaimOutcome claim(RecordId id, Fingerprint fp, Instant now) {
    return store.claim(new ClaimRequest(id, fp, now, LEASE, WINDOW));
  }

  /** The requests {@code call} sent, by operation. */
  private List<String> requestsOf(Runnable call) {
    operations.clear();
    call.run();
    return new ArrayList<>(operations);
  }

  @Test
  void everyClaimOutcomeAndTheRequestsItCosts() {
    RecordId id = RecordId.of("payments", "order-17");
    ClaimOutcome[] out = new ClaimOutcome[1];
    assertThat(requestsOf(() -> out[0] = claim(id, FP_A, T0))).containsExactly("UpdateItem");
    ClaimOutcome.Claimed first = (ClaimOutcome.Claimed) out[0];
    assertThat(first.takeover()).isFalse();
    assertThat(first.generation()).isEqualTo(first.fence());

    // refused outcomes: dynalite ignores ReturnValuesOnConditionCheckFailure, so one GetItem more
    assertThat(requestsOf(() -> out[0] = claim(id, FP_A, T0.plusSeconds(1))))
        .containsExactly("UpdateItem", "GetItem");
    assertThat(out[0]).isEqualTo(new ClaimOutcome.InFlight(LEASE.minusSeconds(1)));
    assertThat(requestsOf(() -> out[0] = claim(id, FP_B, T0.plusSeconds(1))))
        .containsExactly("UpdateItem", "GetItem");
    assertThat(out[0]).isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));

    store.checkpoint(id, first.fence(), RecoveryPoint.of("charged", new byte[] {9}), T0, LEASE);
    Instant expired = T0.plus(LEASE);
    assertThat(requestsOf(() -> out[0] = claim(id, FP_A, expired))).containsExactly("UpdateItem");
    ClaimOutcome.Claimed takeover = (ClaimOutcome.Claimed) out[0];
    assertThat(takeover.takeover()).isTrue();
    assertThat(takeover.fence()).isEqualTo(FenceToken.of(first.fence().value() + 1));
    assertThat(takeover.generation()).isEqualTo(first.fence());
    assertThat(takeover.resumeFrom()).contains(RecoveryPoint.of("charged", new byte[] {9}));

    StoredResponse response = response(201, "created");
    assertThat(requestsOf(() -> store.complete(id, takeover.fence(), response, expired)))
        .containsExactly("UpdateItem");
    assertThat(requestsOf(() -> out[0] = claim(id, FP_A, expired.plusSeconds(5))))
        .containsExactly("UpdateItem", "GetItem");
    assertThat(out[0]).isEqualTo(new ClaimOutcome.Completed(response, expired));
    assertThat(claim(id, FP_B, expired)).isEqualTo(new ClaimOutcome.Mismatch(KeyState.COMPLETE));

    assertThat(requestsOf(() -> out[0] = claim(id, FP_B, expired.plus(WINDOW))))
        .containsExactly("UpdateItem");
    ClaimOutcome.Claimed again = (ClaimOutcome.Claimed) out[0];
    assertThat(again.takeover()).isFalse();
    assertThat(again.fence().value()).isEqualTo(takeover.fence().value() + 1);
    assertThat(again.generation()).isEqualTo(again.fence());
    assertThat(again.resumeFrom())
        .as("a new request does not resume the old one's point")
        .isEmpty();
    assertThat(store.lookup(id).orElseThrow().recoveryPoint()).isEmpty();
  }

  @Test
  void theItemHoldsTheDocumentedAttributes() {
    RecordId id = RecordId.of("a/b", "c");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) claim(id, FP_A, T0);
    store.checkpoint(id, c.fence(), RecoveryPoint.of("p1"), T0, LEASE);
    Map<String, AttributeValue> inFlight = rawItem("3:a/b/c");
    assertThat(inFlight.keySet())
        .containsExactlyInAnyOrder(
            "pk", "scope", "ikey", "st", "fp", "fence", "gen", "lease", "retain", "ttl", "nonce",
            "rp", "rpg");
    assertThat(inFlight.get("st").s()).isEqualTo("I");
    long leaseEnd = T0.plus(LEASE).getEpochSecond() * 1_000_000_000L;
    assertThat(inFlight.get("lease").n()).isEqualTo(Long.toString(leaseEnd));
    assertThat(inFlight.get("ttl").n())
        .as("DynamoDB's time to live: the lease's end plus the store's retention, epoch seconds")
        .isEqualTo(Long.toString(T0.plus(LEASE).plus(Duration.ofDays(3)).getEpochSecond()));

    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Set-Cookie", List.of("a=1", "b=2"));
    headers.put("X-Empty", List.of(""));
    StoredResponse response =
        StoredResponse.of(201, headers, "{\"ok\":true}".getBytes(StandardCharsets.UTF_8));
    store.complete(id, c.fence(), response, T0.plusSeconds(1));
    Map<String, AttributeValue> complete = rawItem("3:a/b/c");
    assertThat(complete.keySet())
        .containsExactlyInAnyOrder(
            "pk", "scope", "ikey", "st", "fp", "fence", "gen", "done", "cgen", "retain", "ttl",
            "nonce", "endn", "rp", "rpg", "status", "hdr", "body");
    RecordSnapshot s = store.lookup(id).orElseThrow();
    assertThat(s.response()).contains(response);
    assertThat(s.response().orElseThrow().headers().keySet())
        .containsExactly("Content-Type", "Set-Cookie", "X-Empty");
    assertThat(s.recoveryPoint()).contains(RecoveryPoint.of("p1"));

    // another scope and key whose plain concatenation would be the same
    RecordId other = RecordId.of("a", "b/c");
    assertThat(claim(other, FP_A, T0)).isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(rawItem("1:a/b/c")).isNotEmpty();
  }

  /**
   * An extended item's {@code ttl} is a string, which time to live ignores, and stays one through
   * the owner's later writes (each copies {@code held}); the reaper alone deletes it, once {@code
   * keep} has passed. An item nobody extended keeps its number.
   */
  @Test
  void anExtendedItemIsLeftByTimeToLiveAndDeletedByTheReaperOnceKept() {
    RecordId kept = RecordId.of("s", "kept");
    RecordId plain = RecordId.of("s", "plain");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) claim(kept, FP_A, T0);
    ClaimOutcome.Claimed p = (ClaimOutcome.Claimed) claim(plain, FP_A, T0);
    Instant keepUntil = T0.plus(Duration.ofDays(30));
    store.extendRetention(kept, c.fence(), keepUntil, T0);
    // an earlier instant does not shorten it, and is no error
    store.extendRetention(kept, c.fence(), T0.plus(Duration.ofDays(1)), T0);
    store.heartbeat(kept, c.fence(), T0.plusSeconds(1), LEASE);
    store.checkpoint(kept, c.fence(), RecoveryPoint.of("p1"), T0.plusSeconds(2), LEASE);
    store.complete(kept, c.fence(), response(201, "kept"), T0.plusSeconds(3));
    store.complete(plain, p.fence(), response(201, "plain"), T0.plusSeconds(3));

    Map<String, AttributeValue> item = rawItem("1:s/kept");
    assertThat(item.get("ttl").s()).as("ttl, a string after the owner's writes").isEqualTo("kept");
    assertThat(item.get("ttl").n()).isNull();
    assertThat(item.get("keep").n())
        .isEqualTo(Long.toString(keepUntil.getEpochSecond() * 1_000_000_000L));
    assertThat(rawItem("1:s/plain").get("ttl").n()).isNotNull();

    Duration retention = Duration.ofDays(3);
    assertThat(store.deleteExpired(T0.plus(Duration.ofDays(10)), retention, 10)).isEqualTo(1);
    assertThat(store.lookup(plain)).isEmpty();
    assertThat(store.lookup(kept)).as("kept for 30 days, reaped at 10").isPresent();
    assertThat(store.deleteExpired(keepUntil, retention, 10)).isEqualTo(1);
    assertThat(store.lookup(kept)).isEmpty();

    RecordId released = RecordId.of("s", "released");
    ClaimOutcome.Claimed r = (ClaimOutcome.Claimed) claim(released, FP_A, T0);
    store.release(released, r.fence(), T0);
    assertThatThrownBy(() -> store.extendRetention(released, r.fence(), keepUntil, T0))
        .isInstanceOf(LeaseLostException.class);
    assertThat(rawItem("1:s/released")).doesNotContainKey("keep");
  }

  @Test
  void aStaleFenceIsRefusedWithWhatTheStoreFound() {
    RecordId id = RecordId.of("s", "k");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) claim(id, FP_A, T0);
    ClaimOutcome.Claimed t = (ClaimOutcome.Claimed) claim(id, FP_A, T0.plus(LEASE));
    assertThatThrownBy(() -> store.heartbeat(id, c.fence(), T0, LEASE))
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("record is IN_FLIGHT with " + t.fence());
    Map<RecordId, FenceToken> leases = new LinkedHashMap<>();
    leases.put(id, c.fence());
    RecordId never = RecordId.of("s", "never");
    leases.put(never, FenceToken.of(5));
    for (int i = 0; i < 40; i++) {
      RecordId mine = RecordId.of("s", "many-" + i);
      leases.put(mine, ((ClaimOutcome.Claimed) claim(mine, FP_A, T0)).fence());
    }
    assertThat(store.heartbeatAll(leases, T0.plusSeconds(20), LEASE))
        .containsExactlyInAnyOrder(id, never);
    assertThat(store.lookup(RecordId.of("s", "many-39")).orElseThrow().leaseExpiresAt())
        .contains(T0.plusSeconds(20).plus(LEASE));
    assertThat(store.lookup(never)).isEmpty();
  }

  @Test
  void aRefusalThatCarriesTheItemNeedsNoRead() throws Exception {
    try (DynamoFront front = DynamoFront.start(Dynalite.endpoint())) {
      front.returnItemOnConditionFailure(true);
      operations.clear();
      DynamoDbClient viaFront = countingClient(front.uri());
      try (DynamoDbKeyStore s = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
        RecordId id = RecordId.of("s", "k");
        s.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW));
        assertThat(
                requestsOf(
                    () ->
                        assertThat(s.claim(new ClaimRequest(id, FP_B, T0, LEASE, WINDOW)))
                            .isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT))))
            .containsExactly("UpdateItem");
        assertThatThrownBy(() -> s.release(id, FenceToken.of(1), T0))
            .isInstanceOf(LeaseLostException.class)
            .hasMessageContaining("record is IN_FLIGHT with fence#");
      } finally {
        viaFront.close();
      }
    }
  }

  @Test
  void everyRefusalThatCarriesTheItemIsDecidedFromItWithoutARead() throws Exception {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Z-Last-Alphabetically", List.of("z"));
    headers.put("Set-Cookie", List.of("b=2", "a=1"));
    headers.put("Content-Type", List.of("application/octet-stream"));
    byte[] body = new byte[256];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    StoredResponse binary = StoredResponse.of(200, headers, body);
    StoredResponse empty = StoredResponse.of(204, new byte[0]);
    RecordId withBody = RecordId.of("s", "binary");
    RecordId withoutBody = RecordId.of("s", "empty");
    RecordId running = RecordId.of("s", "running");
    store.complete(
        withBody, ((ClaimOutcome.Claimed) claim(withBody, FP_A, T0)).fence(), binary, T0);
    store.complete(
        withoutBody, ((ClaimOutcome.Claimed) claim(withoutBody, FP_A, T0)).fence(), empty, T0);
    claim(running, FP_A, T0);
    try (DynamoFront front = DynamoFront.start(Dynalite.endpoint())) {
      front.returnItemOnConditionFailure(true);
      DynamoDbClient viaFront = countingClient(front.uri());
      try (DynamoDbKeyStore s = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
        Instant later = T0.plusSeconds(5);
        ClaimOutcome[] out = new ClaimOutcome[1];
        assertThat(
                requestsOf(
                    () -> out[0] = s.claim(new ClaimRequest(withBody, FP_A, later, LEASE, WINDOW))))
            .containsExactly("UpdateItem");
        assertThat(out[0]).isEqualTo(new ClaimOutcome.Completed(binary, T0));
        StoredResponse replayed = ((ClaimOutcome.Completed) out[0]).response();
        assertThat(replayed.body()).as("the body, byte for byte").isEqualTo(body);
        assertThat(replayed.headers().keySet())
            .as("the headers in their order")
            .containsExactly("Z-Last-Alphabetically", "Set-Cookie", "Content-Type");
        assertThat(replayed.headers().get("Set-Cookie")).containsExactly("b=2", "a=1");

        assertThat(
                requestsOf(
                    () ->
                        out[0] =
                            s.claim(new ClaimRequest(withoutBody, FP_A, later, LEASE, WINDOW))))
            .containsExactly("UpdateItem");
        assertThat(out[0]).isEqualTo(new ClaimOutcome.Completed(empty, T0));

        assertThat(
                requestsOf(
                    () -> out[0] = s.claim(new ClaimRequest(running, FP_A, later, LEASE, WINDOW))))
            .containsExactly("UpdateItem");
        assertThat(out[0]).isEqualTo(new ClaimOutcome.InFlight(LEASE.minusSeconds(5)));
      } finally {
        viaFront.close();
      }
    }
  }

  @Test
  void theReaperDeletesNoRecordThatWasRenewedAfterItsScanReadIt() {
    RecordId id = RecordId.of("s", "renewed-under-the-reaper");
    ClaimOutcome.Claimed c = (ClaimOutcome.Claimed) claim(id, FP_A, T0);
    Duration retention = Duration.ofHours(1);
    Instant reaperNow = T0.plus(LEASE).plus(retention); // the lease ended a retention ago
    Instant renewedAt = reaperNow.plusSeconds(1);
    // after the reaper's scan read the record, and before its delete, the owner renews the lease
    ExecutionInterceptor renewAfterScan =
        new ExecutionInterceptor() {
          @Override
          public void afterExecution(
              Context.AfterExecution context, ExecutionAttributes attributes) {
            if (context.response() instanceof ScanResponse page && page.count() > 0) {
              try (DynamoDbKeyStore owner =
                  DynamoDbKeyStore.builder(client).tableName(table).build()) {
                owner.heartbeat(id, c.fence(), renewedAt, LEASE);
              }
            }
          }
        };
    try (DynamoDbClient reaperClient =
            DynamoDbClient.builder()
                .endpointOverride(Dynalite.endpoint())
                .region(client.serviceClientConfiguration().region())
                .credentialsProvider(client.serviceClientConfiguration().credentialsProvider())
                .httpClient(
                    software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.addExecutionInterceptor(renewAfterScan))
                .build();
        DynamoDbKeyStore reaper = DynamoDbKeyStore.builder(reaperClient).tableName(table).build()) {
      assertThat(reaper.deleteExpired(reaperNow, retention, 10)).as("deleted").isZero();
    }
    assertThat(store.lookup(id).orElseThrow().leaseExpiresAt())
        .as("the record survived, with its renewed lease")
        .contains(renewedAt.plus(LEASE));
  }

  @Test
  void aMissingTableIsAKeyStoreExceptionThatSaysHowToCreateIt() {
    try (DynamoDbKeyStore s = DynamoDbKeyStore.builder(client).tableName(table + "-none").build()) {
      assertThatThrownBy(() -> s.lookup(RecordId.of("s", "k")))
          .isInstanceOf(KeyStoreException.class)
          .isNotInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining(table + "-none")
          .hasMessageContaining("createTableIfMissing");
    }
  }

  @Test
  void aClosedPortIsStoreUnavailable() throws Exception {
    try (DynamoDbClient nowhere =
            Dynalite.client(URI.create("http://127.0.0.1:" + LoopbackPorts.closed()));
        DynamoDbKeyStore s =
            DynamoDbKeyStore.builder(nowhere)
                .tableName(table)
                .callTimeout(Duration.ofSeconds(2))
                .build()) {
      RecordId id = RecordId.of("s", "k");
      assertThatThrownBy(() -> s.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW)))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> s.heartbeatAll(Map.of(id, FenceToken.of(1)), T0, LEASE))
          .isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> s.findAbandoned(T0, 10))
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  private Map<String, AttributeValue> rawItem(String pk) {
    return client
        .getItem(
            b ->
                b.tableName(table).key(Map.of("pk", AttributeValue.fromS(pk))).consistentRead(true))
        .item();
  }

  private static StoredResponse response(int status, String body) {
    return StoredResponse.ofUtf8(status, body);
  }
}
