package dev.idempotency.store.dynamodb;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The transaction handle the work of {@link DynamoDbKeyStore#inPhase} and {@link
 * DynamoDbKeyStore#completeWith} receives: the work adds its own writes (puts, updates, deletes,
 * condition checks on its own items), and the store sends them with its fenced write of the record
 * in one {@code TransactWriteItems}, which DynamoDB applies all together or not at all.
 *
 * <p>Nothing is written while the work runs: a write the work adds is applied when the store
 * commits, after the work returned. So the work cannot read its own writes back, and a work that
 * throws leaves nothing behind. Valid only during the work's call; not thread-safe.
 */
public final class DynamoDbTransaction {
  /** DynamoDB's limit of items per transaction, the store's own write included. */
  public static final int MAX_ITEMS = 100;

  private final List<TransactWriteItem> items = new ArrayList<>();
  private boolean closed;

  DynamoDbTransaction() {}

  /**
   * Adds one of the work's writes to the transaction.
   *
   * @param item a put, update, delete or condition check on an item of the application's; not the
   *     record's own item (DynamoDB refuses two writes of one item in a transaction)
   * @return this handle
   * @throws IllegalStateException if the work already returned, or the transaction would exceed
   *     {@link #MAX_ITEMS} with the store's own write
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
    items.add(item);
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
}
