package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
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
      for (int i = 0; i < reasons.size(); i++) {
        if ("ValidationError".equals(reasons.get(i).code())) {
          throw invalid(request, i, own, reasons.get(i), id, what, e);
        }
      }
      throw StoreErrors.map("the " + what + " of " + id, requests.table(), e);
    } catch (ResourceNotFoundException e) {
      throw new KeyStoreException(
          "the "
              + what
              + " of "
              + id
              + " names a table that does not exist: one of the work's tables "
              + workTables(request)
              + " or the records table "
              + requests.table()
              + "; nothing was committed",
          e);
    } catch (SdkException e) {
      throw StoreErrors.map("the " + what + " of " + id, requests.table(), e);
    }
  }

  /** The item at {@code index} failed DynamoDB's validation (too large, a bad value): say which. */
  private KeyStoreException invalid(
      TransactWriteItemsRequest request,
      int index,
      int own,
      CancellationReason reason,
      RecordId id,
      String what,
      TransactionCanceledException e) {
    String item =
        index == own
            ? "the store's own write of the record (table " + requests.table() + ")"
            : "the work's item #"
                + (index + 1)
                + " (table "
                + table(request.transactItems().get(index))
                + ")";
    String fix =
        StoreErrors.isItemSize(reason.message())
            ? index == own
                ? ": the record would exceed DynamoDB's 400 KB; keep stored responses under"
                    + " DynamoDbKeyStore.MAX_RESPONSE_BYTES"
                : ": that item would exceed DynamoDB's 400 KB"
            : "";
    return new KeyStoreException(
        "the "
            + what
            + " of "
            + id
            + " was refused by DynamoDB's validation of "
            + item
            + " ("
            + reason.message()
            + ")"
            + fix
            + "; nothing was committed",
        e);
  }

  private static List<String> workTables(TransactWriteItemsRequest request) {
    List<TransactWriteItem> items = request.transactItems();
    List<String> tables = new ArrayList<>();
    for (TransactWriteItem item : items.subList(0, items.size() - 1)) {
      String t = table(item);
      if (!tables.contains(t)) {
        tables.add(t);
      }
    }
    return tables;
  }

  private static String table(TransactWriteItem item) {
    if (item.put() != null) {
      return item.put().tableName();
    }
    if (item.update() != null) {
      return item.update().tableName();
    }
    if (item.delete() != null) {
      return item.delete().tableName();
    }
    return item.conditionCheck() == null ? "?" : item.conditionCheck().tableName();
  }
}
