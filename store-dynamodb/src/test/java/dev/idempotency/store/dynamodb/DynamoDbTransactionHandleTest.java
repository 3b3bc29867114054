package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;

/**
 * The transaction handle refuses, when the work adds it, what DynamoDB would refuse only at the
 * commit after the work ran: more items or bytes than a transaction holds, a put over an item's 400
 * KB, a write of the record's own item.
 */
class DynamoDbTransactionHandleTest {
  private static DynamoDbTransaction handle() {
    return new DynamoDbTransaction(
        "records", Map.of("pk", AttributeValue.fromS("8:payments/order-17")));
  }

  @Test
  void theHandleRefusesMoreItemsThanATransactionHolds() {
    DynamoDbTransaction tx = handle();
    for (int i = 0; i < DynamoDbTransaction.MAX_ITEMS - 1; i++) {
      tx.add(DynamoDbTransactionTest.orderPut("o-" + i));
    }
    assertThatThrownBy(() -> tx.add(DynamoDbTransactionTest.orderPut("one-too-many")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("at most 100 items");
    assertThat(tx.items()).hasSize(DynamoDbTransaction.MAX_ITEMS - 1);
  }

  private static TransactWriteItem bigPut(String id, int bytes) {
    return TransactWriteItem.builder()
        .put(
            Put.builder()
                .tableName("blobs")
                .item(
                    Map.of(
                        "id",
                        AttributeValue.fromS(id),
                        "data",
                        AttributeValue.fromB(SdkBytes.fromByteArray(new byte[bytes]))))
                .build())
        .build();
  }

  @Test
  void theHandleRefusesAPutOverOneItemsSizeAndMoreBytesThanATransactionHolds() {
    DynamoDbTransaction tx = handle();
    assertThatThrownBy(() -> tx.add(bigPut("too-big", DynamoDbTransaction.MAX_ITEM_BYTES)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("400 KB");
    int nine = 9;
    for (int i = 0; i < nine; i++) {
      tx.add(bigPut("b-" + i, 400_000)); // 3.6 MB together, each under 400 KB
    }
    assertThatThrownBy(() -> tx.add(bigPut("b-9", 400_000)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("4 MB")
        .hasMessageContaining(Integer.toString(DynamoDbTransaction.MAX_WORK_BYTES));
    assertThat(tx.items()).hasSize(nine);
  }

  @Test
  void theHandleRefusesAWriteOfTheRecordsOwnItem() {
    DynamoDbTransaction tx = handle();
    TransactWriteItem own =
        TransactWriteItem.builder()
            .update(
                Update.builder()
                    .tableName("records")
                    .key(Map.of("pk", AttributeValue.fromS("8:payments/order-17")))
                    .updateExpression("SET x = :x")
                    .expressionAttributeValues(Map.of(":x", AttributeValue.fromN("1")))
                    .build())
            .build();
    assertThatThrownBy(() -> tx.add(own))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("record's own item");
    // another record's item in the same table is the application's business
    tx.add(
        TransactWriteItem.builder()
            .conditionCheck(
                ConditionCheck.builder()
                    .tableName("records")
                    .key(Map.of("pk", AttributeValue.fromS("8:payments/order-18")))
                    .conditionExpression("attribute_exists(pk)")
                    .build())
            .build());
    assertThat(tx.items()).hasSize(1);
  }
}
