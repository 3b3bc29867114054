package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * How an ending write the SDK sent again tells the item its own earlier attempt left from any other
 * ({@link FencedWrites#endedByThis}): by its state, its fence and the request's own nonce.
 */
class FencedWritesTest {
  private static final RecordId ID = RecordId.of("s", "k");
  private static final FenceToken FENCE = FenceToken.of(41);
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");
  private final RecordRequests requests =
      new RecordRequests(
          "records", Duration.ofDays(2), Duration.ofSeconds(5), Duration.ofSeconds(2));

  /** The item as {@code update} leaves it, as far as the comparison looks. */
  private static Map<String, AttributeValue> leftBy(Update update, String state) {
    Map<String, AttributeValue> v = update.expressionAttributeValues();
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(ItemLayout.STATE, AttributeValue.fromS(state));
    item.put(ItemLayout.FENCE, v.get(":f"));
    item.put(ItemLayout.END_NONCE, v.get(":en"));
    return item;
  }

  @Test
  void aReleaseFindsItsOwnEarlierAttempt() {
    Update release = requests.release(ID, FENCE, NOW);
    assertThat(FencedWrites.endedByThis(release, leftBy(release, ItemLayout.RELEASED))).isTrue();
  }

  @Test
  void aCompletionFindsItsOwnEarlierAttempt() {
    Update complete = requests.complete(ID, FENCE, StoredResponse.ofUtf8(201, "ok"), NOW);
    assertThat(FencedWrites.endedByThis(complete, leftBy(complete, ItemLayout.COMPLETE))).isTrue();
  }

  @Test
  void theSameCallMadeAgainIsAnotherRequest() {
    Update first = requests.release(ID, FENCE, NOW);
    Update again = requests.release(ID, FENCE, NOW);
    assertThat(FencedWrites.endedByThis(again, leftBy(first, ItemLayout.RELEASED)))
        .as("every call draws a nonce of its own, even with the same fence and instant")
        .isFalse();
  }

  @Test
  void anotherEndingIsNotThisOne() {
    Update release = requests.release(ID, FENCE, NOW);
    Update complete = requests.complete(ID, FENCE, StoredResponse.ofUtf8(201, "ok"), NOW);
    Map<String, AttributeValue> completed = leftBy(release, ItemLayout.COMPLETE);
    assertThat(FencedWrites.endedByThis(release, completed))
        .as("a completed item, even with the release's nonce, is not its release")
        .isFalse();
    assertThat(FencedWrites.endedByThis(complete, leftBy(complete, ItemLayout.RELEASED))).isFalse();
    assertThat(FencedWrites.endedByThis(complete, leftBy(complete, ItemLayout.IN_FLIGHT)))
        .isFalse();
  }

  @Test
  void anotherFenceOrNoNonceOrNoItemIsNotThisOne() {
    Update release = requests.release(ID, FENCE, NOW);
    Map<String, AttributeValue> newer = leftBy(release, ItemLayout.RELEASED);
    newer.put(ItemLayout.FENCE, AttributeValue.fromN("42"));
    assertThat(FencedWrites.endedByThis(release, newer)).isFalse();
    Map<String, AttributeValue> noNonce = leftBy(release, ItemLayout.RELEASED);
    noNonce.remove(ItemLayout.END_NONCE);
    assertThat(FencedWrites.endedByThis(release, noNonce)).isFalse();
    assertThat(FencedWrites.endedByThis(release, Map.of())).isFalse();
  }

  @Test
  void aWriteThatDoesNotEndTheRequestIsNeverTakenForItsOwn() {
    Update heartbeat = requests.heartbeat(ID, FENCE, NOW, Duration.ofSeconds(30));
    Map<String, AttributeValue> inFlight = new HashMap<>();
    inFlight.put(ItemLayout.STATE, AttributeValue.fromS(ItemLayout.IN_FLIGHT));
    inFlight.put(ItemLayout.FENCE, AttributeValue.fromN(Long.toString(FENCE.value())));
    assertThat(FencedWrites.endedByThis(heartbeat, inFlight)).isFalse();
  }
}
