package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The claim's paths no server here produces at will, against a client that answers as the test
 * says: an item that is there for every conditional write and gone for every read after it (each
 * refusal followed by a purge), and a replay window longer than the retention.
 */
class ItemClaimsTest {
  private static final ClaimRequest REQUEST =
      new ClaimRequest(
          RecordId.of("s", "k"),
          Fingerprint.of(new byte[] {1}),
          Instant.parse("2031-05-17T10:00:00Z"),
          Duration.ofSeconds(30),
          Duration.ofHours(24));

  /** Refuses every claim without the item, and finds no item at every read. */
  private static final class FlickeringItem implements DynamoDbClient {
    final AtomicInteger updates = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
      updates.incrementAndGet();
      throw ConditionalCheckFailedException.builder()
          .message("The conditional request failed")
          .build();
    }

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
      reads.incrementAndGet();
      return GetItemResponse.builder().build();
    }

    @Override
    public String serviceName() {
      return "dynamodb";
    }

    @Override
    public void close() {}
  }

  private static ItemClaims claims(DynamoDbClient client, Duration retention) {
    RecordRequests requests =
        new RecordRequests("records", retention, Duration.ofSeconds(5), Duration.ofSeconds(2));
    return new ItemClaims(client, requests, new FencedWrites(client, requests));
  }

  @Test
  void aClaimGivesUpAfterItsAttemptsWhenTheItemChangesUnderEachOne() {
    FlickeringItem client = new FlickeringItem();
    assertThatThrownBy(() -> claims(client, Duration.ofDays(3)).claim(REQUEST))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("each of " + ItemClaims.ATTEMPTS + " conditional writes")
        .hasMessageNotContaining("nothing was decided");
    assertThat(client.updates).hasValue(ItemClaims.ATTEMPTS);
    assertThat(client.reads).hasValue(ItemClaims.ATTEMPTS);
  }

  @Test
  void aReplayWindowLongerThanTheRetentionIsRefusedBeforeAnyRequest() {
    FlickeringItem client = new FlickeringItem();
    assertThatThrownBy(() -> claims(client, Duration.ofHours(12)).claim(REQUEST))
        .isInstanceOf(KeyStoreException.class)
        .isNotInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("replay window (PT24H)")
        .hasMessageContaining("retention (PT12H)");
    assertThat(client.updates).hasValue(0);
  }
}
