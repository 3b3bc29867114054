package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.store.dynamodb.internal.ItemLayout;
import dev.idempotency.store.dynamodb.internal.ItemSizes;
import dev.idempotency.store.dynamodb.internal.ResponseBudget;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The largest response the store declares ({@code maxResponseBytes()}) against dynalite, beside the
 * largest other attributes a record can have: the limit stores and replays, one byte more is
 * refused before anything is written, and the item at the limit is within 400 KB by dynalite's own
 * count.
 */
class DynamoDbResponseLimitIT {
  private static final Instant T0 = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(24);
  private static final Fingerprint LARGEST_FINGERPRINT = Fingerprint.of(filled(64, (byte) 7));
  private static final RecoveryPoint LARGEST_POINT =
      RecoveryPoint.of("p".repeat(64), filled(RecoveryPoint.MAX_DATA_BYTES, (byte) 3));

  private DynamoDbClient client;
  private DynamoDbKeyStore store;
  private String table;

  @BeforeEach
  void setUp() {
    client = Dynalite.client();
    table = Dynalite.table("limit");
    store = DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build();
  }

  @AfterEach
  void tearDown() {
    store.close();
    Dynalite.drop(client, table);
    client.close();
  }

  @Test
  void theDeclaredLimitStoresBesideTheLargestOtherAttributesAndOneByteMoreIsRefused() {
    assertThat(store.maxResponseBytes()).isEqualTo(DynamoDbKeyStore.MAX_RESPONSE_BYTES);
    // the largest scope in UTF-8 (255 characters of three bytes) and the largest key
    RecordId id = RecordId.of("\u20ac".repeat(255), "k".repeat(255));
    ClaimOutcome.Claimed owner = claimWithTheLargestPoint(id);

    StoredResponse over = responseOfSize(store.maxResponseBytes() + 1);
    assertThatThrownBy(() -> store.complete(id, owner.fence(), over, T0))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining(Long.toString(store.maxResponseBytes()))
        .hasMessageContaining("maxResponseBytes()")
        .hasMessageContaining("Nothing was written");
    assertThat(store.lookup(id).orElseThrow().state()).isEqualTo(KeyState.IN_FLIGHT);

    StoredResponse largest = responseOfSize(store.maxResponseBytes());
    store.complete(id, owner.fence(), largest, T0);
    assertThat(claim(id, T0.plusSeconds(1))).isEqualTo(new ClaimOutcome.Completed(largest, T0));
  }

  @Test
  void theItemAtTheLimitIsWithinFourHundredKilobytesByDynalitesOwnCount() {
    // dynalite counts a string by its UTF-16 length, DynamoDB by its UTF-8 bytes: ASCII here, so
    // that both count alike
    RecordId id = RecordId.of("s".repeat(255), "k".repeat(255));
    ClaimOutcome.Claimed owner = claimWithTheLargestPoint(id);
    store.complete(id, owner.fence(), responseOfSize(store.maxResponseBytes()), T0);
    String pk = ItemLayout.partitionKey(id);
    Map<String, AttributeValue> item = rawItem(pk);
    long counted = ItemSizes.of(item);
    long room = ResponseBudget.ITEM_BYTES - counted;
    // the allowance, and what an ASCII scope takes less than the largest (two bytes a character,
    // in the scope and the partition key), give or take these headers' framing and the numbers'
    // slack: the declared limit leaves no more room unused than that
    long asciiScope = 2 * 2 * 255;
    assertThat(room)
        .as("what is left of the item at the declared limit, by DynamoDB's rules")
        .isBetween(
            ResponseBudget.HEADER_FRAMING_ALLOWANCE + asciiScope - 64,
            ResponseBudget.HEADER_FRAMING_ALLOWANCE + asciiScope + 64);

    // dynalite's own check agrees with that count within 16 bytes, numbers included
    byte[] body = item.get(ItemLayout.BODY).b().asByteArray();
    assertThat(growBody(pk, body.length + room - 16)).as("16 bytes under 400 KB").isNull();
    assertThat(growBody(pk, body.length + room + 16))
        .as("16 bytes over 400 KB")
        .contains("Item size to update has exceeded the maximum allowed size");
  }

  /**
   * The owner's claim of the item with the largest recovery point, the item kept longer by an
   * operator too (its {@code keep} a number of 19 significant digits, and {@code held}): the
   * largest item a record makes.
   */
  private ClaimOutcome.Claimed claimWithTheLargestPoint(RecordId id) {
    ClaimOutcome.Claimed owner = (ClaimOutcome.Claimed) claim(id, T0);
    store.checkpoint(id, owner.fence(), LARGEST_POINT, T0, LEASE);
    // 8999999999999999999 ns: 19 significant digits, as large as a number gets here
    store.extendRetention(
        id, owner.fence(), Instant.ofEpochSecond(8_999_999_999L, 999_999_999L), T0);
    return owner;
  }

  private ClaimOutcome claim(RecordId id, Instant now) {
    return store.claim(new ClaimRequest(id, LARGEST_FINGERPRINT, now, LEASE, WINDOW));
  }

  /** A response of {@code size} bytes as {@link StoredResponse#size()} counts: a few headers. */
  private static StoredResponse responseOfSize(long size) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Set-Cookie", List.of("a=1", "b=2"));
    headers.put("X-Note", List.of("caf\u00e9"));
    long headerBytes = StoredResponse.of(200, headers, new byte[0]).size();
    return StoredResponse.of(200, headers, filled((int) (size - headerBytes), (byte) 'x'));
  }

  /** Sets the item's body to {@code length} bytes directly; dynalite's refusal, or null. */
  private String growBody(String pk, long length) {
    try {
      client.updateItem(
          b ->
              b.tableName(table)
                  .key(Map.of(ItemLayout.PK, AttributeValue.fromS(pk)))
                  .updateExpression("SET body = :b")
                  .expressionAttributeValues(
                      Map.of(
                          ":b",
                          AttributeValue.fromB(
                              SdkBytes.fromByteArray(filled((int) length, (byte) 'y'))))));
      return null;
    } catch (DynamoDbException e) {
      return e.getMessage();
    }
  }

  private Map<String, AttributeValue> rawItem(String pk) {
    return client
        .getItem(
            b ->
                b.tableName(table)
                    .key(Map.of(ItemLayout.PK, AttributeValue.fromS(pk)))
                    .consistentRead(true))
        .item();
  }

  private static byte[] filled(int n, byte b) {
    byte[] bytes = new byte[n];
    java.util.Arrays.fill(bytes, b);
    return bytes;
  }
}
