package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The owner's writes of one record ({@code UpdateItem}s conditional on its fence) and the
 * consistent read of an item, with their exceptions mapped to the SPI's. Thread-safe.
 */
public final class FencedWrites {
  /** The first pause before a renewal that met a transaction on its item goes again; doubles. */
  private static final long FIRST_CONFLICT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private static final long MAX_CONFLICT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final DynamoDbClient client;
  private final RecordRequests requests;

  public FencedWrites(DynamoDbClient client, RecordRequests requests) {
    this.client = client;
    this.requests = requests;
  }

  /**
   * Sends {@code update}, the owner's write {@code op}. A completion or release refused because an
   * earlier attempt of the same request ended the record succeeds: the SDK sent it again after that
   * attempt's answer was lost ({@link #endedByThis}). Every other refusal, a second ending call of
   * the owner's among them (rule 3.4), is a lost lease.
   *
   * @throws LeaseLostException if the fence was refused, with what the store found
   * @throws StoreUnavailableException if DynamoDB could not be reached, throttled the write or a
   *     transaction held the item
   */
  public void write(String op, RecordId id, FenceToken fence, Update update) {
    Map<String, AttributeValue> found;
    try {
      client.updateItem(requests.single(update, requests.bounds()));
      return;
    } catch (ConditionalCheckFailedException e) {
      found = e.hasItem() ? e.item() : read(id, op);
    } catch (SdkException e) {
      throw StoreErrors.map(op + " of " + id, requests.table(), e);
    }
    if (endedByThis(update, found)) {
      return;
    }
    throw new LeaseLostException(
        id, fence, found.isEmpty() ? "record is absent" : RecordItem.of(found).describe());
  }

  /**
   * Whether {@code found} is the item as the ending write {@code update} (a completion or release)
   * left it: its ending state, the owner's fence, and the request's own random nonce ({@link
   * ItemLayout#END_NONCE}), which every attempt of the request carries and no other write does.
   */
  static boolean endedByThis(Update update, Map<String, AttributeValue> found) {
    Map<String, AttributeValue> v = update.expressionAttributeValues();
    AttributeValue nonce = v.get(":en");
    if (found.isEmpty() || nonce == null) {
      return false; // not an ending write, or no item
    }
    AttributeValue ended = v.containsKey(":C") ? v.get(":C") : v.get(":R");
    return nonce.equals(found.get(ItemLayout.END_NONCE))
        && Objects.equals(found.get(ItemLayout.STATE), ended)
        && Objects.equals(found.get(ItemLayout.FENCE), v.get(":f"));
  }

  /**
   * Sends {@code extension} ({@link RecordRequests#extend}): a refusal with the fence current and
   * the item in flight or complete means it is kept as long already, and changes nothing.
   *
   * @throws LeaseLostException if the fence is not current, or the item is released or absent
   * @throws StoreUnavailableException if DynamoDB could not be reached or throttled the write
   */
  public void extend(RecordId id, FenceToken fence, UpdateItemRequest extension) {
    Map<String, AttributeValue> found;
    try {
      client.updateItem(extension);
      return;
    } catch (ConditionalCheckFailedException e) {
      found = e.hasItem() ? e.item() : read(id, "extendRetention");
    } catch (SdkException e) {
      throw StoreErrors.map("extendRetention of " + id, requests.table(), e);
    }
    if (!found.isEmpty()) {
      RecordItem r = RecordItem.of(found);
      if (r.fence() == fence.value() && !r.state().equals(ItemLayout.RELEASED)) {
        return; // the later instant wins: kept at least this long already
      }
    }
    throw new LeaseLostException(
        id, fence, found.isEmpty() ? "record is absent" : RecordItem.of(found).describe());
  }

  /**
   * One renewal of a batch: sends the {@code heartbeat} update, bounded so that it ends by {@code
   * deadline} ({@link System#nanoTime}); when a transaction holds the item (the owner's own phase
   * or completion committing), sends it again after a pause, while time is left.
   *
   * @return true if renewed, false if the fence was refused (the owner lost the record)
   * @throws StoreUnavailableException if DynamoDB could not be reached, or the item stayed held by
   *     transactions until {@code deadline}: whether the lease was renewed is then unknown
   */
  public boolean renew(RecordId id, Update heartbeat, long deadline) {
    long pause = FIRST_CONFLICT_PAUSE_NANOS;
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new StoreUnavailableException(
            "renewal of "
                + id
                + " on DynamoDB table "
                + requests.table()
                + ": a transaction held the item until the renewal's time ran out; the lease was"
                + " not renewed by this call");
      }
      try {
        client.updateItem(requests.single(heartbeat, requests.bounds(Duration.ofNanos(left))));
        return true;
      } catch (ConditionalCheckFailedException e) {
        return false;
      } catch (SdkException e) {
        if (!StoreErrors.isWriteConflict(e)) {
          throw StoreErrors.map("renewal of " + id, requests.table(), e);
        }
      }
      sleep(Math.min(pause, deadline - System.nanoTime()));
      pause = Math.min(pause * 2, MAX_CONFLICT_PAUSE_NANOS);
    }
  }

  /**
   * One consistent {@code GetItem}; empty when there is no item.
   *
   * @throws StoreUnavailableException if DynamoDB could not be reached
   * @throws KeyStoreException if the read failed otherwise
   */
  public Map<String, AttributeValue> read(RecordId id, String op) {
    return read(id, op, requests.bounds());
  }

  /** {@link #read(RecordId, String)} within {@code bounds}. */
  Map<String, AttributeValue> read(
      RecordId id,
      String op,
      software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration bounds) {
    try {
      Map<String, AttributeValue> item = client.getItem(requests.get(id, bounds)).item();
      return item == null ? Map.of() : item;
    } catch (SdkException e) {
      throw StoreErrors.map(op + " of " + id, requests.table(), e);
    }
  }

  private static void sleep(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while a renewal waited to go again", e);
    }
  }
}
