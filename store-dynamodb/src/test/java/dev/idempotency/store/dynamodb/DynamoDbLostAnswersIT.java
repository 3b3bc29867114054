package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.store.dynamodb.DynamoFront.Fault;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Claims whose answer was lost, on dynalite through {@link DynamoFront}, which lets a claim's write
 * through and answers DynamoDB's 500 instead of its result: once (the SDK sends the claim again,
 * and the second attempt finds the first one's write), or every time (the SDK gives up, and the
 * store finds its win with one read). A release or completion the SDK sent twice, whose second
 * attempt finds the first one's write. And a copy of a claim that DynamoDB applies late, after the
 * owner released the record.
 */
class DynamoDbLostAnswersIT {
  private static final Instant T0 = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(24);
  private static final Fingerprint FP_A = Fingerprint.of(new byte[] {1, 2, 3});
  private static final Fingerprint FP_B = Fingerprint.of(new byte[] {4, 5, 6});

  private final List<SdkRequest> sent = new CopyOnWriteArrayList<>();
  private DynamoDbClient direct;
  private DynamoFront front;
  private DynamoDbClient viaFront;
  private String table;

  @BeforeEach
  void setUp() throws Exception {
    direct = Dynalite.client();
    table = Dynalite.table("lost");
    DynamoDbKeyStore.builder(direct).tableName(table).createTableIfMissing().build().close();
    front = DynamoFront.start(Dynalite.endpoint());
    ExecutionInterceptor record =
        new ExecutionInterceptor() {
          @Override
          public void beforeTransmission(
              Context.BeforeTransmission context, ExecutionAttributes attributes) {
            sent.add(context.request());
          }
        };
    viaFront =
        DynamoDbClient.builder()
            .endpointOverride(front.uri())
            .region(direct.serviceClientConfiguration().region())
            .credentialsProvider(direct.serviceClientConfiguration().credentialsProvider())
            .httpClient(UrlConnectionHttpClient.create())
            .overrideConfiguration(o -> o.addExecutionInterceptor(record))
            .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    viaFront.close();
    front.close();
    Dynalite.drop(direct, table);
    direct.close();
  }

  private List<String> operations() {
    return sent.stream().map(r -> r.getClass().getSimpleName().replace("Request", "")).toList();
  }

  /**
   * A store through the front, which lets every UpdateItem through and answers a 500 instead of its
   * result; a call timeout of 1 s ends the SDK's retries of it early.
   */
  private DynamoDbKeyStore everyAnswerLost() {
    front.fail(
        (op, body) -> op.equals("UpdateItem"),
        Fault.INTERNAL_ERROR_AFTER_FORWARDING,
        Integer.MAX_VALUE);
    return DynamoDbKeyStore.builder(viaFront)
        .tableName(table)
        .callTimeout(Duration.ofSeconds(1))
        .build();
  }

  @Test
  void aClaimTheSdkSentTwiceRecognisesItsOwnFirstWrite() {
    RecordId id = RecordId.of("s", "sent-twice");
    front.fail((op, body) -> op.equals("UpdateItem"), Fault.INTERNAL_ERROR_AFTER_FORWARDING, 1);
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
      ClaimOutcome.Claimed won =
          (ClaimOutcome.Claimed) store.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW));
      assertThat(operations())
          .as("the claim, the SDK's retry of it (refused: the first attempt applied), the read")
          .containsExactly("UpdateItem", "UpdateItem", "GetItem");
      assertThat(won.takeover()).isFalse();
      assertThat(won.generation()).as("one claim: a fresh one").isEqualTo(won.fence());
      assertThat(store.lookup(id).orElseThrow().fence()).isEqualTo(won.fence());
      assertThat(store.claim(new ClaimRequest(id, FP_B, T0, LEASE, WINDOW)))
          .isEqualTo(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));
    }
  }

  @Test
  void aClaimWhoseEveryAnswerWasLostFindsItsWinWithOneRead() {
    RecordId id = RecordId.of("s", "never-answered");
    try (DynamoDbKeyStore store = everyAnswerLost()) {
      ClaimOutcome outcome = store.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW));
      assertThat(outcome)
          .as("the write took effect: the claim won, and says so")
          .isInstanceOf(ClaimOutcome.Claimed.class);
      assertThat(operations()).endsWith("GetItem");
      assertThat(operations().stream().filter("UpdateItem"::equals).count())
          .as("the SDK retried the 500s")
          .isGreaterThan(1);
      assertThat(store.lookup(id).orElseThrow().fence())
          .isEqualTo(((ClaimOutcome.Claimed) outcome).fence());
    }
  }

  @Test
  void aClaimWhoseAnswerWasLostAndWhichDidNotWinIsUnavailable() {
    RecordId id = RecordId.of("s", "lost-and-refused");
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(direct).tableName(table).build()) {
      store.claim(new ClaimRequest(id, FP_B, T0, LEASE, WINDOW));
    }
    try (DynamoDbKeyStore store = everyAnswerLost()) {
      assertThatThrownBy(() -> store.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW)))
          .isInstanceOf(dev.idempotency.StoreUnavailableException.class)
          .hasMessageContaining("did not find this claim's write")
          .hasMessageNotContaining("nothing was decided");
    }
  }

  @Test
  void aCopyOfAClaimAppliedAfterTheOwnerReleasedIsRefused() {
    RecordId id = RecordId.of("s", "late-copy");
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
      ClaimOutcome.Claimed won =
          (ClaimOutcome.Claimed) store.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW));
      UpdateItemRequest claim = (UpdateItemRequest) sent.get(0);
      store.release(id, won.fence(), T0.plusSeconds(1));
      // the same request again, as DynamoDB would apply an attempt the SDK abandoned
      assertThatThrownBy(() -> direct.updateItem(claim))
          .isInstanceOf(ConditionalCheckFailedException.class);
      assertThat(store.lookup(id)).as("still released: nobody owns it").isEmpty();
    }
  }

  private ClaimOutcome.Claimed claimThenLoseTheNextAnswer(DynamoDbKeyStore store, RecordId id) {
    ClaimOutcome.Claimed won =
        (ClaimOutcome.Claimed) store.claim(new ClaimRequest(id, FP_A, T0, LEASE, WINDOW));
    loseTheNextAnswer();
    return won;
  }

  /**
   * The next UpdateItem reaches dynalite and its answer is replaced by a 500, so the SDK sends it
   * again: a refusal then comes on the second attempt, as for a write whose first attempt applied.
   */
  private void loseTheNextAnswer() {
    sent.clear();
    front.fail((op, body) -> op.equals("UpdateItem"), Fault.INTERNAL_ERROR_AFTER_FORWARDING, 1);
  }

  private void assertRefusedAfterARetry(Runnable write, String what) {
    loseTheNextAnswer();
    assertThatThrownBy(write::run).as(what).isInstanceOf(LeaseLostException.class);
    assertThat(operations()).as(what + ": sent twice").startsWith("UpdateItem", "UpdateItem");
  }

  @Test
  void aReleaseTheSdkSentTwiceSucceedsAndLeavesTheKeyClaimable() {
    RecordId id = RecordId.of("s", "release-sent-twice");
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
      ClaimOutcome.Claimed won = claimThenLoseTheNextAnswer(store, id);
      store.release(id, won.fence(), T0.plusSeconds(1));
      assertThat(operations())
          .as("the release, the SDK's retry of it (refused: the first attempt applied), the read")
          .containsExactly("UpdateItem", "UpdateItem", "GetItem");
      assertThat(store.lookup(id)).as("released").isEmpty();
      assertRefusedAfterARetry(
          () -> store.release(id, won.fence(), T0.plusSeconds(1)),
          "the same release called again, a request of its own: rule 3.4");
      ClaimOutcome.Claimed next =
          (ClaimOutcome.Claimed)
              store.claim(new ClaimRequest(id, FP_B, T0.plusSeconds(2), LEASE, WINDOW));
      assertThat(next.fence().value()).isGreaterThan(won.fence().value());
      assertRefusedAfterARetry(
          () -> store.release(id, won.fence(), T0.plusSeconds(1)),
          "the same release once the key was claimed again is a stale owner's");
      assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);
    }
  }

  @Test
  void aCompletionTheSdkSentTwiceSucceedsAndNoOtherEndingWriteIsTakenForIt() {
    RecordId id = RecordId.of("s", "completion-sent-twice");
    StoredResponse response = StoredResponse.ofUtf8(201, "{\"id\":\"ord_1\"}");
    try (DynamoDbKeyStore store = DynamoDbKeyStore.builder(viaFront).tableName(table).build()) {
      ClaimOutcome.Claimed won = claimThenLoseTheNextAnswer(store, id);
      store.complete(id, won.fence(), response, T0.plusSeconds(1));
      assertThat(operations()).containsExactly("UpdateItem", "UpdateItem", "GetItem");
      assertRefusedAfterARetry(
          () -> store.complete(id, won.fence(), response, T0.plusSeconds(1)),
          "the same completion called again, a request of its own: rule 3.4");
      assertThat(store.claim(new ClaimRequest(id, FP_A, T0.plusSeconds(2), LEASE, WINDOW)))
          .as("the first attempt's completion is the one replayed")
          .isEqualTo(new ClaimOutcome.Completed(response, T0.plusSeconds(1)));
      assertRefusedAfterARetry(
          () -> store.complete(id, won.fence(), StoredResponse.ofUtf8(500, "x"), T0.plusSeconds(1)),
          "another response under the same fence is not this request's write");
      assertRefusedAfterARetry(
          () -> store.release(id, won.fence(), T0.plusSeconds(1)),
          "nor is a release of the completed record");
    }
  }
}
