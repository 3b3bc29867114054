package dev.idempotency.store.dynamodb;

import dev.idempotency.store.dynamodb.internal.ItemSizes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The transaction handle the work of {@link DynamoDbKeyStore#inPhase} and {@link
 * DynamoDbKeyStore#completeWith} receives: the work adds its own writes (puts, updates, deletes,
 * condition checks on its own items), and the store sends them with its fenced write of the record
 * in one {@code TransactWriteItems}, which DynamoDB applies all together or not at all.
 *
 * <p>Nothing is written while the work runs: a write the work adds is applied when the store
 * commits, after the work returned. So the work cannot read its own writes back, and a work that
 * throws leaves nothing behind. {@link #add} refuses at once what DynamoDB would refuse only at the
 * commit: more items than a transaction holds, more bytes than it holds, an item over 400 KB, and a
 * write of the record's own item. Valid only during the work's call; not thread-safe.
 */
public final class DynamoDbTransaction {
  /** DynamoDB's limit of items per transaction, the store's own write included. */
  public static final int MAX_ITEMS = 100;

  /** DynamoDB's limit of one item: 400 KB. */
  public static final int MAX_ITEM_BYTES = 400 * 1024;

  /**
   * The most bytes the work's items may carry together: DynamoDB's 4 MB per transaction, less one
   * item's 400 KB kept for the store's own write of the record.
   */
  public static final int MAX_WORK_BYTES = 4 * 1024 * 1024 - MAX_ITEM_BYTES;

  private final String recordTable;
  private final Map<String, AttributeValue> recordKey;
  private final List<TransactWriteItem> items = new ArrayList<>();
  private long bytes;
  private boolean closed;

  DynamoDbTransaction(String recordTable, Map<String, AttributeValue> recordKey) {
    this.recordTable = recordTable;
    this.recordKey = recordKey;
  }

  /**
   * Adds one of the work's writes to the transaction. The sizes checked are those of what the
   * request carries (a put's item; an update's key and values; a delete's or check's key), by
   * DynamoDB's rules: an update that makes an item larger than it carries can still exceed a limit
   * at the commit.
   *
   * @param item a put, update, delete or condition check on an item of the application's
   * @return this handle
   * @throws IllegalStateException if the work already returned, or the transaction would exceed
   *     {@link #MAX_ITEMS} with the store's own write, or its items would carry more than {@link
   *     #MAX_WORK_BYTES}
   * @throws IllegalArgumentException if {@code item} writes the record's own item (DynamoDB refuses
   *     two operations on one item in a transaction), or is a put of more than {@link
   *     #MAX_ITEM_BYTES}
   */
  public DynamoDbTransaction add(TransactWriteItem item) {
    Objects.requireNonNull(item, "item");
    if (closed) {
      throw new IllegalStateException("the transaction handle is used after its work returned");
    }
    if (items.size() + 1 >= MAX_ITEMS) {
      throw new IllegalStateException(
          "a DynamoDB transaction holds at most "
              + MAX_ITEMS
              + " items, one of them the store's own write: the work may add "
              + (MAX_ITEMS - 1));
    }
    if (isRecordItem(item)) {
      throw new IllegalArgumentException(
          "the work writes the idempotency record's own item (table "
              + recordTable
              + ", key "
              + recordKey
              + "): DynamoDB refuses two operations on one item in a transaction, and the"
              + " store's fenced write of it is already there");
    }
    long size = ItemSizes.of(item);
    if (item.put() != null && size > MAX_ITEM_BYTES) {
      throw new IllegalArgumentException(
          "a put of "
              + size
              + " bytes to table "
              + item.put().tableName()
              + ": DynamoDB holds at most "
              + MAX_ITEM_BYTES
              + " bytes (400 KB) per item");
    }
    if (bytes + size > MAX_WORK_BYTES) {
      throw new IllegalStateException(
          "the work's items would carry "
              + (bytes + size)
              + " bytes: a DynamoDB transaction holds at most 4 MB, of which the store keeps 400 KB"
              + " for its own write, so the work may add at most "
              + MAX_WORK_BYTES);
    }
    items.add(item);
    bytes += size;
    return this;
  }

  /** The writes the work added so far, in order. */
  public List<TransactWriteItem> items() {
    return Collections.unmodifiableList(items);
  }

  /** Ends the handle's use: the work returned. */
  List<TransactWriteItem> close() {
    closed = true;
    return List.copyOf(items);
  }

  private boolean isRecordItem(TransactWriteItem item) {
    String table;
    @Nullable Map<String, AttributeValue> key;
    if (item.put() != null) {
      table = item.put().tableName();
      key = item.put().item();
    } else if (item.update() != null) {
      table = item.update().tableName();
      key = item.update().key();
    } else if (item.delete() != null) {
      table = item.delete().tableName();
      key = item.delete().key();
    } else if (item.conditionCheck() != null) {
      table = item.conditionCheck().tableName();
      key = item.conditionCheck().key();
    } else {
      return false;
    }
    if (!recordTable.equals(table) || key == null) {
      return false;
    }
    for (Map.Entry<String, AttributeValue> k : recordKey.entrySet()) {
      if (!k.getValue().equals(key.get(k.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
