package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Builds the store's requests for one table: every one carries the store's time bounds (so the
 * SDK's own retries end before a lease could), and every write its condition and the values the
 * expressions in {@link Expressions} name. Immutable and thread-safe.
 */
public final class RecordRequests {
  private final String table;
  private final Duration retention;
  private final Duration callTimeout;
  private final Duration attemptTimeout;
  private final AwsRequestOverrideConfiguration bounds;

  /**
   * @param table the table
   * @param retention the store's retention, for the time-to-live attribute
   * @param callTimeout the bound of one call, the SDK's retries included
   * @param attemptTimeout the bound of one HTTP attempt
   */
  public RecordRequests(
      String table, Duration retention, Duration callTimeout, Duration attemptTimeout) {
    this.table = table;
    this.retention = retention;
    this.callTimeout = callTimeout;
    this.attemptTimeout = attemptTimeout;
    this.bounds =
        AwsRequestOverrideConfiguration.builder()
            .apiCallTimeout(callTimeout)
            .apiCallAttemptTimeout(attemptTimeout)
            .build();
  }

  /** The bound of one HTTP attempt. */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /** The store's retention, from which every item's time to live is computed. */
  public Duration retention() {
    return retention;
  }

  /** The table. */
  public String table() {
    return table;
  }

  /** The time bounds every request carries. */
  public AwsRequestOverrideConfiguration bounds() {
    return bounds;
  }

  /** The time bounds of a request that must end within {@code left}, if that is shorter. */
  public AwsRequestOverrideConfiguration bounds(Duration left) {
    if (left.compareTo(callTimeout) >= 0) {
      return bounds;
    }
    return AwsRequestOverrideConfiguration.builder()
        .apiCallTimeout(left)
        .apiCallAttemptTimeout(left.compareTo(attemptTimeout) < 0 ? left : attemptTimeout)
        .build();
  }

  /** The item's key. */
  public static Map<String, AttributeValue> key(RecordId id) {
    return Map.of(ItemLayout.PK, AttributeValue.fromS(ItemLayout.partitionKey(id)));
  }

  /** A new nonce, a claim's or an ending write's: random, never 0. */
  public static long newNonce() {
    return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
  }

  /**
   * The claim: one conditional {@code UpdateItem} that returns the new item when it wins and the
   * item that refused it when it loses (where DynamoDB supports that). {@code nonce} is this
   * claim's own: a copy of the request that arrives late finds it in the item and is refused.
   */
  public UpdateItemRequest claim(
      RecordId id, byte[] fingerprint, Instant now, Duration lease, Duration window, long nonce) {
    long t = ItemLayout.epochNanos(now);
    long leaseEnd = ItemLayout.plus(t, lease);
    // the fence of an item that does not exist: the engine's time in microseconds (see the docs:
    // larger than every fence the item had before a purge, unless the clock stepped back by more
    // than the retention); at least 1, for a now before 1970
    long base = Math.max(0, Math.floorDiv(t, 1000L));
    Map<String, AttributeValue> v = states();
    v.put(":fp", AttributeValue.fromB(SdkBytes.fromByteArray(fingerprint)));
    v.put(":now", number(t));
    v.put(":cut", number(ItemLayout.minus(t, window)));
    v.put(":lease", number(leaseEnd));
    v.put(":ttl", number(ItemLayout.ttlSeconds(leaseEnd, retention)));
    v.put(":base", number(base));
    v.put(":base1", number(base + 1));
    v.put(":one", number(1));
    v.put(":nonce", number(nonce));
    v.put(":scope", AttributeValue.fromS(id.scope().value()));
    v.put(":ikey", AttributeValue.fromS(id.key().value()));
    return UpdateItemRequest.builder()
        .tableName(table)
        .key(key(id))
        .conditionExpression(Expressions.CLAIM_CONDITION)
        .updateExpression(Expressions.CLAIM_UPDATE)
        .expressionAttributeNames(Map.of("#ttl", "ttl", "#scope", "scope", "#status", "status"))
        .expressionAttributeValues(v)
        .returnValues(ReturnValue.ALL_NEW)
        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
        .overrideConfiguration(bounds)
        .build();
  }

  /** A heartbeat under {@code fence}. */
  public Update heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Map<String, AttributeValue> v = owner(fence);
    lease(v, now, lease);
    return update(id, Expressions.HEARTBEAT_UPDATE, v, Map.of("#ttl", "ttl"));
  }

  /** A checkpoint under {@code fence}. */
  public Update checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Map<String, AttributeValue> v = owner(fence);
    lease(v, now, lease);
    v.put(":rp", AttributeValue.fromS(point.name()));
    byte[] data = point.data();
    if (data.length > 0) {
      v.put(":rpd", AttributeValue.fromB(SdkBytes.fromByteArray(data)));
    }
    return update(
        id,
        data.length > 0 ? Expressions.CHECKPOINT_UPDATE : Expressions.CHECKPOINT_UPDATE_NO_DATA,
        v,
        Map.of("#ttl", "ttl"));
  }

  /** The completion under {@code fence}. */
  public Update complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Map<String, AttributeValue> v = owner(fence);
    ended(v, fence, now, ":C", ItemLayout.COMPLETE);
    v.put(":status", number(response.status()));
    v.put(":hdr", RecordItem.headers(response));
    byte[] body = response.body();
    if (body.length > 0) {
      v.put(":body", AttributeValue.fromB(SdkBytes.fromByteArray(body)));
    }
    return update(
        id,
        body.length > 0 ? Expressions.COMPLETE_UPDATE : Expressions.COMPLETE_UPDATE_NO_BODY,
        v,
        Map.of("#ttl", "ttl", "#status", "status"));
  }

  /** The release under {@code fence}. */
  public Update release(RecordId id, FenceToken fence, Instant now) {
    Map<String, AttributeValue> v = owner(fence);
    ended(v, fence, now, ":R", ItemLayout.RELEASED);
    return update(id, Expressions.RELEASE_UPDATE, v, Map.of("#ttl", "ttl"));
  }

  /**
   * {@code update} as a standalone {@code UpdateItem} within {@code bounds}, returning the item
   * that refused it where DynamoDB supports that.
   */
  public UpdateItemRequest single(Update update, AwsRequestOverrideConfiguration bounds) {
    return UpdateItemRequest.builder()
        .tableName(update.tableName())
        .key(update.key())
        .conditionExpression(update.conditionExpression())
        .updateExpression(update.updateExpression())
        .expressionAttributeNames(update.expressionAttributeNames())
        .expressionAttributeValues(update.expressionAttributeValues())
        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
        .overrideConfiguration(bounds)
        .build();
  }

  /** A strongly consistent read of the item within {@code bounds}. */
  public GetItemRequest get(RecordId id, AwsRequestOverrideConfiguration bounds) {
    return GetItemRequest.builder()
        .tableName(table)
        .key(key(id))
        .consistentRead(true)
        .overrideConfiguration(bounds)
        .build();
  }

  /** One page of a strongly consistent scan with {@code filter}. */
  public ScanRequest scan(
      String filter,
      Map<String, AttributeValue> values,
      @Nullable Map<String, AttributeValue> startKey,
      int pageSize) {
    return ScanRequest.builder()
        .tableName(table)
        .filterExpression(filter)
        .expressionAttributeValues(values)
        .exclusiveStartKey(startKey)
        .consistentRead(true)
        .limit(pageSize)
        .overrideConfiguration(bounds)
        .build();
  }

  /**
   * The extension of the record's retention to {@code keepUntil}, under {@code fence}, returning
   * the item that refused it where DynamoDB supports that.
   */
  public UpdateItemRequest extend(RecordId id, FenceToken fence, Instant keepUntil) {
    Map<String, AttributeValue> v = states();
    v.remove(":R");
    v.put(":f", number(fence.value()));
    v.put(":keep", number(ItemLayout.epochNanos(keepUntil)));
    v.put(":held", AttributeValue.fromS(ItemLayout.HELD_VALUE));
    return UpdateItemRequest.builder()
        .tableName(table)
        .key(key(id))
        .conditionExpression(Expressions.EXTEND_CONDITION)
        .updateExpression(Expressions.EXTEND_UPDATE)
        .expressionAttributeNames(Map.of("#ttl", "ttl"))
        .expressionAttributeValues(v)
        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
        .overrideConfiguration(bounds)
        .build();
  }

  /**
   * The reaper's delete of an item the scan found, if it is still that item, still expired and not
   * kept longer as of {@code now} (epoch nanoseconds).
   */
  public DeleteItemRequest delete(RecordItem found, long cut, long now) {
    Map<String, AttributeValue> v = new HashMap<>();
    v.put(":f", number(found.fence()));
    v.put(":st", AttributeValue.fromS(found.state()));
    v.put(":cut", number(cut));
    v.put(":now", number(now));
    return DeleteItemRequest.builder()
        .tableName(table)
        .key(key(found.id()))
        .conditionExpression(Expressions.DELETE_CONDITION)
        .expressionAttributeValues(v)
        .overrideConfiguration(bounds)
        .build();
  }

  /** A number attribute. */
  public static AttributeValue number(long n) {
    return AttributeValue.fromN(Long.toString(n));
  }

  private Update update(
      RecordId id, String expression, Map<String, AttributeValue> v, Map<String, String> names) {
    return Update.builder()
        .tableName(table)
        .key(key(id))
        .conditionExpression(Expressions.OWNER_CONDITION)
        .updateExpression(expression)
        .expressionAttributeNames(names)
        .expressionAttributeValues(v)
        .build();
  }

  private static Map<String, AttributeValue> states() {
    Map<String, AttributeValue> v = new HashMap<>();
    v.put(":I", AttributeValue.fromS(ItemLayout.IN_FLIGHT));
    v.put(":C", AttributeValue.fromS(ItemLayout.COMPLETE));
    v.put(":R", AttributeValue.fromS(ItemLayout.RELEASED));
    return v;
  }

  private static Map<String, AttributeValue> owner(FenceToken fence) {
    Map<String, AttributeValue> v = new HashMap<>();
    v.put(":I", AttributeValue.fromS(ItemLayout.IN_FLIGHT));
    v.put(":f", number(fence.value()));
    return v;
  }

  private void lease(Map<String, AttributeValue> v, Instant now, Duration lease) {
    long leaseEnd = ItemLayout.plus(ItemLayout.epochNanos(now), lease);
    v.put(":lease", number(leaseEnd));
    v.put(":ttl", number(ItemLayout.ttlSeconds(leaseEnd, retention)));
  }

  /** The values of a write that ends the request: completion or release. */
  private void ended(
      Map<String, AttributeValue> v, FenceToken fence, Instant now, String state, String value) {
    long t = ItemLayout.epochNanos(now);
    v.put(":now", number(t));
    v.put(":ttl", number(ItemLayout.ttlSeconds(t, retention)));
    v.put(":f1", number(fence.value() + 1));
    v.put(":en", number(newNonce())); // this request's, the same in each of the SDK's attempts
    v.put(state, AttributeValue.fromS(value)); // the state it ends in
  }
}
