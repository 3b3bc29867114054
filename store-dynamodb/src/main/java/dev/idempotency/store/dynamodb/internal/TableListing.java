package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The listing of records ({@link dev.idempotency.spi.KeyStore#list}): a strongly consistent {@code
 * Scan} with the selection's state and lease (and the scope) as its filter, paged by {@code
 * ExclusiveStartKey}. The cursor is the partition key of the page's last record, or, when a call
 * stopped before the page filled, the scan's own {@code LastEvaluatedKey}: either way the next
 * call's scan starts right after it. A call evaluates no more than {@code 10 * limit + 100} items,
 * so a page may hold fewer records than the limit and still name a next page. The order is the
 * scan's (the partition keys' hash order): no order a person can read. A filter does not make a
 * scan cheaper: every item evaluated costs read capacity, matched or not ({@code
 * docs/stores-dynamodb.md}). Thread-safe and immutable.
 */
public final class TableListing {
  private static final String PREFIX = "dd.";
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final DynamoDbClient client;
  private final RecordRequests requests;

  public TableListing(DynamoDbClient client, RecordRequests requests) {
    this.client = client;
    this.requests = requests;
  }

  /**
   * One page of {@code query}.
   *
   * @throws IllegalArgumentException if the query's cursor was not made by this store
   */
  public RecordPage list(RecordQuery query) {
    Map<String, AttributeValue> values = new HashMap<>();
    Map<String, String> names = new HashMap<>();
    String filter = filter(query, values, names);
    @Nullable Map<String, AttributeValue> start =
        query.after().map(TableListing::startKey).orElse(null);
    long budget = 10L * query.limit() + 100;
    long evaluated = 0;
    List<RecordSnapshot> page = new ArrayList<>();
    while (evaluated < budget) {
      int scanLimit = (int) Math.min(TableScans.PAGE, budget - evaluated);
      ScanResponse response = scan(filter, names, values, start, scanLimit);
      evaluated += response.scannedCount();
      for (Map<String, AttributeValue> item : response.items()) {
        RecordSnapshot s = RecordItem.of(item).snapshot();
        if (query.selection().matches(s, query.now())) {
          page.add(s);
          if (page.size() == query.limit()) {
            return new RecordPage(page, Optional.of(cursor(item)));
          }
        }
      }
      if (!response.hasLastEvaluatedKey() || response.lastEvaluatedKey().isEmpty()) {
        return new RecordPage(page, Optional.empty());
      }
      start = response.lastEvaluatedKey();
    }
    // the budget ran out mid-table: the next call's scan starts where this one stopped
    return new RecordPage(
        page, Optional.of(cursor(Objects.requireNonNull(start, "a scan stopped with a last key"))));
  }

  /** The selection's filter (and the scope's), with its values and names filled in. */
  private static String filter(
      RecordQuery query, Map<String, AttributeValue> values, Map<String, String> names) {
    String filter;
    if (query.selection() == RecordSelection.COMPLETE) {
      values.put(":C", AttributeValue.fromS(ItemLayout.COMPLETE));
      filter = "st = :C";
    } else {
      values.put(":I", AttributeValue.fromS(ItemLayout.IN_FLIGHT));
      values.put(":now", RecordRequests.number(ItemLayout.epochNanos(query.now())));
      // the recovery point is told apart from an older request's by its generation: the
      // snapshot decides that, after the scan
      filter =
          query.selection() == RecordSelection.LIVE
              ? "st = :I AND lease > :now"
              : "st = :I AND lease <= :now";
    }
    if (query.scope().isPresent()) {
      names.put("#sc", ItemLayout.SCOPE);
      values.put(":scope", AttributeValue.fromS(query.scope().get().value()));
      filter += " AND #sc = :scope";
    }
    return filter;
  }

  private ScanResponse scan(
      String filter,
      Map<String, String> names,
      Map<String, AttributeValue> values,
      @Nullable Map<String, AttributeValue> start,
      int limit) {
    try {
      return client.scan(
          requests.scan(filter, values, start, limit).toBuilder()
              .expressionAttributeNames(names.isEmpty() ? null : names)
              .build());
    } catch (SdkException e) {
      throw StoreErrors.map("list", requests.table(), e);
    }
  }

  private static PageCursor cursor(Map<String, AttributeValue> item) {
    String pk =
        Objects.requireNonNull(item.get(ItemLayout.PK), "an item has its partition key").s();
    return new PageCursor(PREFIX + ENCODER.encodeToString(pk.getBytes(StandardCharsets.UTF_8)));
  }

  private static Map<String, AttributeValue> startKey(PageCursor cursor) {
    try {
      if (!cursor.value().startsWith(PREFIX)) {
        throw new IllegalArgumentException("not a listing cursor of the DynamoDB store");
      }
      String pk =
          new String(
              DECODER.decode(cursor.value().substring(PREFIX.length())), StandardCharsets.UTF_8);
      return Map.of(ItemLayout.PK, AttributeValue.fromS(pk));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cursor "
              + cursor.value()
              + " was not made by this store: pass on the cursor of its last page",
          e);
    }
  }
}
