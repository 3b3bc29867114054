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
   * Sends {@code update}, the owner's write {@code op}. A completion or release that the SDK sent
   * more than once, refused on a later attempt because the item is already as this very request
   * leaves it, succeeds: an earlier attempt applied it and its answer was lost ({@link
   * #endedByThis}). Refused on its first attempt, the same write is the owner's second ending of
   * the record, which rule 3.4 refuses.
   *
   * @throws LeaseLostException if the fence was refused, with what the store found
   * @throws StoreUnavailableException if DynamoDB could not be reached, throttled the write or a
   *     transaction held the item
   */
  public void write(String op, RecordId id, FenceToken fence, Update update) {
    Map<String, AttributeValue> found;
    boolean sentAgain;
    try {
      client.updateItem(requests.single(update, requests.bounds()));
      return;
    } catch (ConditionalCheckFailedException e) {
      found = e.hasItem() ? e.item() : read(id, op);
      sentAgain = e.numAttempts() != null && e.numAttempts() > 1;
    } catch (SdkException e) {
      throw StoreErrors.map(op + " of " + id, requests.table(), e);
    }
    if (sentAgain && endedByThis(update, found)) {
      return;
    }
    throw new LeaseLostException(
        id, fence, found.isEmpty() ? "record is absent" : RecordItem.of(found).describe());
  }

  /**
   * Whether {@code found} is the item as the ending write {@code update} (a completion or release)
   * leaves it: its state, the owner's fence, the next claim's generation, and the request's own
   * instant (and, for a completion, its response). Only the owner of the fence can end the record
   * under it, a takeover would have drawn a newer fence, and the owner ends it once; so such an
   * item was ended by this request, whose answer was lost.
   */
  static boolean endedByThis(Update update, Map<String, AttributeValue> found) {
    Map<String, AttributeValue> v = update.expressionAttributeValues();
    AttributeValue now = v.get(":now");
    AttributeValue next = v.get(":f1");
    if (found.isEmpty() || now == null || next == null) {
      return false; // not an ending write, or no item
    }
    boolean completion = v.containsKey(":C");
    boolean same =
        Objects.equals(found.get(ItemLayout.STATE), v.get(completion ? ":C" : ":R"))
            && Objects.equals(found.get(ItemLayout.FENCE), v.get(":f"))
            && next.equals(found.get(ItemLayout.GENERATION))
            && now.equals(found.get(ItemLayout.RETAIN_FROM));
    if (!same || !completion) {
      return same;
    }
    return now.equals(found.get(ItemLayout.COMPLETED_AT))
        && Objects.equals(found.get(ItemLayout.STATUS), v.get(":status"))
        && Objects.equals(found.get(ItemLayout.HEADERS), v.get(":hdr"))
        && Objects.equals(found.get(ItemLayout.BODY), v.get(":body"));
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
