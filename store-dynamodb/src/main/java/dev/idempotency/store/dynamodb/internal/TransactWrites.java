package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * The commit of {@code inPhase} and {@code completeWith}: the work's writes and the store's fenced
 * write of the record in one {@code TransactWriteItems}, the store's write last. What a cancelled
 * transaction means is read from its cancellation reasons, which DynamoDB lists in the order of the
 * items.
 */
public final class TransactWrites {
  private final DynamoDbClient client;
  private final RecordRequests requests;

  public TransactWrites(DynamoDbClient client, RecordRequests requests) {
    this.client = client;
    this.requests = requests;
  }

  /** The request that commits {@code work}'s items and {@code fenced} together. */
  public TransactWriteItemsRequest request(List<TransactWriteItem> work, Update fenced) {
    List<TransactWriteItem> items = new ArrayList<>(work.size() + 1);
    items.addAll(work);
    items.add(TransactWriteItem.builder().update(fenced).build());
    return TransactWriteItemsRequest.builder()
        .transactItems(items)
        // the SDK's own retries of this attempt are then idempotent: DynamoDB applies one token
        // once within ten minutes
        .clientRequestToken(UUID.randomUUID().toString())
        .overrideConfiguration(requests.bounds())
        .build();
  }

  /**
   * Commits, or says why not.
   *
   * @return whether it committed; {@code false} when a conflicting transaction or write on one of
   *     the items cancelled it, and the work may run again
   * @throws LeaseLostException if the store's fenced write was refused: the fence is stale
   * @throws TransactionCanceledException if a condition of the work's own items failed, as DynamoDB
   *     threw it (its reasons say which)
   * @throws StoreUnavailableException if DynamoDB could not be reached or throttled the commit
   */
  public boolean commit(
      TransactWriteItemsRequest request, RecordId id, FenceToken fence, String what) {
    try {
      client.transactWriteItems(request);
      return true;
    } catch (TransactionCanceledException e) {
      List<CancellationReason> reasons =
          e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
      int own = request.transactItems().size() - 1;
      if (reasons.size() > own && "ConditionalCheckFailed".equals(reasons.get(own).code())) {
        throw new LeaseLostException(
            id, fence, "the fenced write of the " + what + " was refused; nothing was committed");
      }
      for (CancellationReason r : reasons) {
        if ("TransactionConflict".equals(r.code())) {
          return false;
        }
        if ("ThrottlingError".equals(r.code())
            || "ProvisionedThroughputExceeded".equals(r.code())) {
          throw new StoreUnavailableException(
              "the " + what + " of " + id + " was throttled (" + r.code() + "); nothing committed",
              e);
        }
      }
      for (CancellationReason r : reasons) {
        if ("ConditionalCheckFailed".equals(r.code())) {
          throw e; // the work's own condition: its answer, as DynamoDB gave it
        }
      }
      throw StoreErrors.map("the " + what + " of " + id, requests.table(), e);
    } catch (SdkException e) {
      throw StoreErrors.map("the " + what + " of " + id, requests.table(), e);
    }
  }
}
