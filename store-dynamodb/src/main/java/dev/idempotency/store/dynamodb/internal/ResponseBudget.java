package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What of DynamoDB's 400 KB item a stored response may take: the item less every other attribute a
 * completed record holds, each at its largest (a scope of 255 three-byte characters, a key of 255,
 * a 64-byte fingerprint, a recovery point of 64 characters and 4,096 bytes of data, numbers of 19
 * digits), less an allowance for the framing of the header list. Sizes by DynamoDB's published
 * rules ({@link ItemSizes}); a number is counted one byte larger than the rule's "approximately",
 * so that the budget never rests on the approximation. Stateless.
 */
public final class ResponseBudget {
  /** DynamoDB's item limit: 400 KB, attribute names included. */
  public static final long ITEM_BYTES = 400L * 1024;

  /**
   * What the header list's framing may take beyond the names and values themselves: three bytes for
   * the list, and per header five (its entry and its own list) plus one per name and per value. 4
   * KiB frames about 680 headers of one value each.
   */
  public static final long HEADER_FRAMING_ALLOWANCE = 4096;

  /** Every attribute of a completed record but the response's, each at its largest. */
  public static final long OTHER_ATTRIBUTES_AT_MOST = largestOtherAttributes();

  /**
   * The most bytes of body plus header names and values ({@link StoredResponse#size()}) a record
   * holds: {@link #ITEM_BYTES} less {@link #OTHER_ATTRIBUTES_AT_MOST}, the names {@code hdr} and
   * {@code body}, and {@link #HEADER_FRAMING_ALLOWANCE}.
   */
  public static final long MAX_RESPONSE_BYTES =
      ITEM_BYTES
          - OTHER_ATTRIBUTES_AT_MOST
          - ItemLayout.HEADERS.length()
          - ItemLayout.BODY.length()
          - HEADER_FRAMING_ALLOWANCE;

  private ResponseBudget() {}

  /**
   * Returns {@code response} if a record can hold it; refuses it, before anything is written, if
   * its {@link StoredResponse#size()} is over {@link #MAX_RESPONSE_BYTES}, or if its headers need
   * more framing than the allowance leaves room for.
   *
   * @throws KeyStoreException naming the limit
   */
  public static StoredResponse storable(StoredResponse response) {
    long size = response.size();
    if (size > MAX_RESPONSE_BYTES) {
      throw new KeyStoreException(
          "a response of "
              + size
              + " bytes (body plus header names and values) is larger than the "
              + MAX_RESPONSE_BYTES
              + " bytes a DynamoDB record can hold (DynamoDbKeyStore.maxResponseBytes(): an item"
              + " is at most 400 KB, and the record's other attributes take the rest). Nothing was"
              + " written; keep the binding's stored-response limit at most that, so that a larger"
              + " response is stored as its not-stored marker");
    }
    long framing = encoded(response) - size;
    if (size + framing > MAX_RESPONSE_BYTES + HEADER_FRAMING_ALLOWANCE) {
      throw new KeyStoreException(
          "a response of "
              + size
              + " bytes with "
              + response.headers().size()
              + " headers needs "
              + framing
              + " bytes to frame its header list, more than a DynamoDB record holds beside it"
              + " (DynamoDbKeyStore.maxResponseBytes() = "
              + MAX_RESPONSE_BYTES
              + " leaves "
              + HEADER_FRAMING_ALLOWANCE
              + " bytes for framing: five per header and one per value). Nothing was written");
    }
    return response;
  }

  /** The bytes the values of the response's two attributes take in the item. */
  static long encoded(StoredResponse response) {
    return ItemSizes.of(RecordItem.headers(response)) + response.bodyLength();
  }

  private static long largestOtherAttributes() {
    String scope = "\u20ac".repeat(Scope.MAX_LENGTH); // three bytes each in UTF-8
    String key = "k".repeat(IdempotencyKey.MAX_LENGTH);
    AttributeValue number = AttributeValue.fromN(Long.toString(Long.MAX_VALUE));
    Map<String, AttributeValue> item = new HashMap<>();
    item.put(ItemLayout.PK, AttributeValue.fromS(Scope.MAX_LENGTH + ":" + scope + "/" + key));
    item.put(ItemLayout.SCOPE, AttributeValue.fromS(scope));
    item.put(ItemLayout.KEY, AttributeValue.fromS(key));
    item.put(ItemLayout.STATE, AttributeValue.fromS(ItemLayout.COMPLETE));
    item.put(ItemLayout.FINGERPRINT, bytes(Fingerprint.MAX_BYTES));
    item.put(ItemLayout.POINT_NAME, AttributeValue.fromS("p".repeat(64)));
    item.put(ItemLayout.POINT_DATA, bytes(RecoveryPoint.MAX_DATA_BYTES));
    item.put(ItemLayout.STATUS, AttributeValue.fromN("999"));
    item.put(ItemLayout.HELD, AttributeValue.fromS(ItemLayout.HELD_VALUE));
    List<String> numbers =
        List.of(
            ItemLayout.FENCE,
            ItemLayout.GENERATION,
            ItemLayout.CLAIM_NONCE,
            ItemLayout.END_NONCE,
            ItemLayout.RETAIN_FROM,
            ItemLayout.TTL,
            ItemLayout.POINT_GENERATION,
            ItemLayout.COMPLETED_AT,
            ItemLayout.COMPLETED_GENERATION,
            ItemLayout.KEEP_UNTIL);
    for (String name : numbers) {
      item.put(name, number);
    }
    return ItemSizes.of(item) + numbers.size() + 1; // a byte more per number, the status's too
  }

  private static AttributeValue bytes(int n) {
    return AttributeValue.fromB(SdkBytes.fromByteArray(new byte[n]));
  }
}
