package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * {@code findAbandoned} and {@code deleteExpired}: strongly consistent scans with a filter, read a
 * page at a time. DynamoDB has no index over the whole table in key order, so both read every item
 * (a scan's cost is the size of the table, not of the answer); {@code docs/stores-dynamodb.md} says
 * when to leave retention to DynamoDB's time to live instead.
 */
public final class TableScans {
  /** Items a scan page evaluates (DynamoDB also stops a page at 1 MB). */
  static final int PAGE = 500;

  private final DynamoDbClient client;
  private final RecordRequests requests;

  public TableScans(DynamoDbClient client, RecordRequests requests) {
    this.client = client;
    this.requests = requests;
  }

  /**
   * The in-flight records whose lease ended by {@code now}, oldest lease first, at most {@code
   * limit}: the whole table is read, keeping the {@code limit} oldest.
   */
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Map<String, AttributeValue> v = new HashMap<>();
    v.put(":I", AttributeValue.fromS(ItemLayout.IN_FLIGHT));
    v.put(":now", RecordRequests.number(ItemLayout.epochNanos(now)));
    Comparator<RecordItem> oldestFirst =
        Comparator.comparingLong(RecordItem::leaseEnd)
            .thenComparing(r -> ItemLayout.partitionKey(r.id()));
    // the newest of the kept items at the head, to be dropped when an older one comes
    PriorityQueue<RecordItem> kept = new PriorityQueue<>(oldestFirst.reversed());
    Map<String, AttributeValue> start = null;
    do {
      ScanResponse page = scan(Expressions.ABANDONED_FILTER, v, start);
      for (Map<String, AttributeValue> item : page.items()) {
        kept.add(RecordItem.of(item));
        if (kept.size() > limit) {
          kept.poll();
        }
      }
      start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : null;
    } while (start != null && !start.isEmpty());
    List<RecordItem> sorted = new ArrayList<>(kept);
    sorted.sort(oldestFirst);
    List<RecordSnapshot> result = new ArrayList<>(sorted.size());
    sorted.forEach(r -> result.add(r.snapshot()));
    return result;
  }

  /**
   * Deletes up to {@code limit} records past retention, each with a conditional {@code DeleteItem}
   * (still the item the scan saw, still past retention), and released items past retention on the
   * way, which are not counted. Stops reading once {@code limit} are deleted.
   */
  public int deleteExpired(Instant now, Duration retention, int limit) {
    long t = ItemLayout.epochNanos(now);
    long cut = ItemLayout.minus(t, retention);
    Map<String, AttributeValue> v =
        Map.of(":cut", RecordRequests.number(cut), ":now", RecordRequests.number(t));
    int deleted = 0;
    int releasedDeleted = 0;
    Map<String, AttributeValue> start = null;
    do {
      ScanResponse page = scan(Expressions.EXPIRED_FILTER, v, start);
      for (Map<String, AttributeValue> item : page.items()) {
        RecordItem r = RecordItem.of(item);
        boolean released = r.state().equals(ItemLayout.RELEASED);
        if (released ? releasedDeleted >= limit : deleted >= limit) {
          continue;
        }
        if (delete(r, cut, t)) {
          if (released) {
            releasedDeleted++;
          } else {
            deleted++;
          }
        }
      }
      start = page.hasLastEvaluatedKey() ? page.lastEvaluatedKey() : null;
    } while (deleted < limit && start != null && !start.isEmpty());
    return deleted;
  }

  private boolean delete(RecordItem r, long cut, long now) {
    try {
      client.deleteItem(requests.delete(r, cut, now));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false; // claimed, renewed or deleted since the scan read it: not expired any more
    } catch (SdkException e) {
      throw StoreErrors.map("deleteExpired", requests.table(), e);
    }
  }

  private ScanResponse scan(
      String filter,
      Map<String, AttributeValue> values,
      @Nullable Map<String, AttributeValue> start) {
    try {
      return client.scan(requests.scan(filter, values, start, PAGE));
    } catch (SdkException e) {
      throw StoreErrors.map("a scan", requests.table(), e);
    }
  }
}
