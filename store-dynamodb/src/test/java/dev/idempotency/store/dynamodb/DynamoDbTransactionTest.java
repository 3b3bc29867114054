package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * {@code inPhase} and {@code completeWith} against a client that records the {@code
 * TransactWriteItems} request and answers as a test tells it: a fake, because dynalite (the tests'
 * DynamoDB) has no transactions. It checks the request the store builds (the work's items, then the
 * fenced write, conditional on the fence) and how the store reads DynamoDB's answers (cancellation
 * reasons); whether DynamoDB applies that request as documented is what the fake cannot show
 * (docs/stores-dynamodb.md).
 */
class DynamoDbTransactionTest {
  private static final RecordId ID = RecordId.of("payments", "order-17");
  private static final FenceToken FENCE = FenceToken.of(1_900_000_000_000_001L);
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  /** Answers each TransactWriteItems with the next scripted exception, or success. */
  private static final class RecordingClient implements DynamoDbClient {
    final List<TransactWriteItemsRequest> requests = new ArrayList<>();
    final Deque<RuntimeException> answers = new ArrayDeque<>();

    @Override
    public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
      requests.add(request);
      RuntimeException next = answers.poll();
      if (next != null) {
        throw next;
      }
      return TransactWriteItemsResponse.builder().build();
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
      return GetItemResponse.builder().build();
    }

    @Override
    public String serviceName() {
      return "dynamodb";
    }

    @Override
    public void close() {}
  }

  private final RecordingClient client = new RecordingClient();

  private DynamoDbKeyStore store() {
    return DynamoDbKeyStore.builder(client).tableName("records").build();
  }

  /** {@code store}'s phase for the record's owner, under {@link #FENCE} at {@link #NOW}. */
  private static <R> R inPhase(
      DynamoDbKeyStore store, RecoveryPoint next, TransactionalWork<DynamoDbTransaction, R> work)
      throws Exception {
    return store.inPhase(ID, FENCE, next, NOW, Duration.ofSeconds(30), work);
  }

  /** {@code store}'s completion for the record's owner, under {@link #FENCE} at {@link #NOW}. */
  private static StoredResponse completeWith(
      DynamoDbKeyStore store, TransactionalWork<DynamoDbTransaction, StoredResponse> work)
      throws Exception {
    return store.completeWith(ID, FENCE, NOW, work);
  }

  static TransactWriteItem orderPut(String order) {
    return TransactWriteItem.builder()
        .put(
            Put.builder()
                .tableName("orders")
                .item(Map.of("id", AttributeValue.fromS(order)))
                .conditionExpression("attribute_not_exists(id)")
                .build())
        .build();
  }

  private static TransactionCanceledException cancelled(String... codes) {
    List<CancellationReason> reasons = new ArrayList<>();
    for (String c : codes) {
      reasons.add(CancellationReason.builder().code(c).build());
    }
    return TransactionCanceledException.builder()
        .message("Transaction cancelled")
        .cancellationReasons(reasons)
        .build();
  }

  @Test
  void aPhaseCommitsTheWorksItemsAndTheFencedCheckpointInOneRequest() throws Exception {
    try (DynamoDbKeyStore store = store()) {
      String result =
          inPhase(
              store,
              RecoveryPoint.of("charged"),
              tx -> {
                tx.add(orderPut("o-1"));
                return "charge-1";
              });
      assertThat(result).isEqualTo("charge-1");
    }
    assertThat(client.requests).hasSize(1);
    TransactWriteItemsRequest r = client.requests.get(0);
    assertThat(r.clientRequestToken()).as("SDK retries of the commit are idempotent").isNotBlank();
    assertThat(r.transactItems()).hasSize(2);
    assertThat(r.transactItems().get(0)).isEqualTo(orderPut("o-1"));
    Update fenced = r.transactItems().get(1).update();
    assertThat(fenced.tableName()).isEqualTo("records");
    assertThat(fenced.key()).containsEntry("pk", AttributeValue.fromS("8:payments/order-17"));
    assertThat(fenced.conditionExpression()).isEqualTo("fence = :f AND st = :I");
    assertThat(fenced.expressionAttributeValues())
        .containsEntry(":f", AttributeValue.fromN(Long.toString(FENCE.value())))
        .containsEntry(":I", AttributeValue.fromS("I"))
        .containsEntry(":rp", AttributeValue.fromS("charged"));
    assertThat(fenced.updateExpression()).startsWith("SET rp = :rp, rpg = gen, lease = :lease");
  }

  @Test
  void aCompletionCommitsTheResponseUnderTheFence() throws Exception {
    StoredResponse response = StoredResponse.ofUtf8(201, "{\"order\":\"o-1\"}");
    try (DynamoDbKeyStore store = store()) {
      assertThat(
              completeWith(
                  store,
                  tx -> {
                    tx.add(orderPut("o-1"));
                    return response;
                  }))
          .isEqualTo(response);
    }
    Update fenced = client.requests.get(0).transactItems().get(1).update();
    assertThat(fenced.conditionExpression()).isEqualTo("fence = :f AND st = :I");
    assertThat(fenced.updateExpression()).startsWith("SET st = :C, done = :now, cgen = gen");
    assertThat(fenced.expressionAttributeValues())
        .containsEntry(":status", AttributeValue.fromN("201"))
        .containsEntry(":f1", AttributeValue.fromN(Long.toString(FENCE.value() + 1)));
  }

  @Test
  void aRefusedFencedWriteIsALostLease() {
    client.answers.add(cancelled("None", "ConditionalCheckFailed"));
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  inPhase(
                      store,
                      RecoveryPoint.of("charged"),
                      tx -> {
                        tx.add(orderPut("o-1"));
                        return "x";
                      }))
          .isInstanceOf(LeaseLostException.class)
          .hasMessageContaining(ID.toString());
    }
  }

  @Test
  void theWorksOwnFailedConditionComesOutAsDynamoDbThrewIt() {
    TransactionCanceledException own = cancelled("ConditionalCheckFailed", "None");
    client.answers.add(own);
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  completeWith(
                      store,
                      tx -> {
                        tx.add(orderPut("o-1"));
                        return StoredResponse.ofUtf8(200, "ok");
                      }))
          .isSameAs(own);
    }
  }

  @Test
  void aConflictRunsTheWorkAgainAndOnlyTheLastRunsItemsAreSent() throws Exception {
    client.answers.add(cancelled("TransactionConflict", "None"));
    AtomicInteger runs = new AtomicInteger();
    try (DynamoDbKeyStore store = store()) {
      String result =
          inPhase(
              store,
              RecoveryPoint.of("charged"),
              tx -> {
                int run = runs.incrementAndGet();
                tx.add(orderPut("o-run-" + run));
                return "run " + run;
              });
      assertThat(result).isEqualTo("run 2");
    }
    assertThat(client.requests).hasSize(2);
    assertThat(client.requests.get(1).transactItems()).hasSize(2);
    assertThat(client.requests.get(1).transactItems().get(0)).isEqualTo(orderPut("o-run-2"));
    assertThat(client.requests.get(1).clientRequestToken())
        .as("a new attempt is a new transaction")
        .isNotEqualTo(client.requests.get(0).clientRequestToken());
  }

  @Test
  void throttlingIsUnavailableAndConflictsEndAfterTheAttempts() {
    client.answers.add(cancelled("None", "ThrottlingError"));
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(() -> inPhase(store, RecoveryPoint.of("p"), tx -> "x"))
          .isInstanceOf(StoreUnavailableException.class);
      for (int i = 0; i < 3; i++) {
        client.answers.add(cancelled("TransactionConflict"));
      }
      assertThatThrownBy(() -> inPhase(store, RecoveryPoint.of("p"), tx -> "x"))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("3 times");
    }
  }

  @Test
  void workThatThrowsSendsNothingAndItsExceptionComesOutAsThrown() {
    IllegalStateException declined = new IllegalStateException("card declined");
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  inPhase(
                      store,
                      RecoveryPoint.of("p"),
                      tx -> {
                        tx.add(orderPut("o-1"));
                        throw declined;
                      }))
          .isSameAs(declined);
    }
    assertThat(client.requests).isEmpty();
  }

  @Test
  void aNullArgumentIsRefusedBeforeTheWork() {
    AtomicInteger runs = new AtomicInteger();
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  store.inPhase(
                      ID,
                      null,
                      RecoveryPoint.of("p"),
                      NOW,
                      Duration.ofSeconds(30),
                      tx -> runs.incrementAndGet()))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(
              () -> store.completeWith(ID, FENCE, null, tx -> StoredResponse.ofUtf8(200, "x")))
          .isInstanceOf(NullPointerException.class);
    }
    assertThat(runs).hasValue(0);
    assertThat(client.requests).isEmpty();
  }

  @Test
  void aWorkThatWritesTheRecordsOwnItemFailsBeforeAnythingIsSent() {
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  inPhase(
                      store,
                      RecoveryPoint.of("p"),
                      tx ->
                          tx.add(
                              TransactWriteItem.builder()
                                  .delete(
                                      Delete.builder()
                                          .tableName("records")
                                          .key(
                                              Map.of(
                                                  "pk",
                                                  AttributeValue.fromS("8:payments/order-17")))
                                          .build())
                                  .build())))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(client.requests).isEmpty();
  }

  @Test
  void aResponseTooLargeForAnItemIsRefusedBeforeTheCommit() {
    StoredResponse big = StoredResponse.of(200, new byte[DynamoDbKeyStore.MAX_RESPONSE_BYTES + 1]);
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(() -> completeWith(store, tx -> big))
          .isInstanceOf(KeyStoreException.class)
          .hasMessageContaining("a DynamoDB record can hold");
    }
    assertThat(client.requests).as("nothing sent").isEmpty();
  }

  @Test
  void aValidationErrorOfAWorkItemNamesThatItemNotTheStoredResponse() {
    TransactionCanceledException e =
        TransactionCanceledException.builder()
            .message(
                "Transaction cancelled, please refer cancellation reasons for specific reasons")
            .cancellationReasons(
                CancellationReason.builder()
                    .code("ValidationError")
                    .message("Item size has exceeded the maximum allowed size")
                    .build(),
                CancellationReason.builder().code("None").build())
            .build();
    client.answers.add(e);
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  completeWith(
                      store,
                      tx -> {
                        tx.add(orderPut("o-1"));
                        return StoredResponse.ofUtf8(200, "ok");
                      }))
          .isInstanceOf(KeyStoreException.class)
          .isNotInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("the work's item #1 (table orders)")
          .hasMessageContaining("400 KB")
          .hasMessageNotContaining("MAX_RESPONSE_BYTES");
    }
  }

  @Test
  void aMissingTableOfTheWorkIsNamedWithTheRecordsTable() {
    client.answers.add(
        ResourceNotFoundException.builder().message("Requested resource not found").build());
    try (DynamoDbKeyStore store = store()) {
      assertThatThrownBy(
              () ->
                  inPhase(
                      store,
                      RecoveryPoint.of("p"),
                      tx -> {
                        tx.add(orderPut("o-1"));
                        return "x";
                      }))
          .isInstanceOf(KeyStoreException.class)
          .hasMessageContaining("one of the work's tables [orders] or the records table records");
    }
  }
}
