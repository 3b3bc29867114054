package dev.idempotency.examples.docs;

import dev.idempotency.Execution;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.store.dynamodb.DynamoDbTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The stores' pages' code that runs business writes in the store's transactions
 * (docs/stores-jdbc.md and docs/stores-dynamodb.md), compiled.
 */
final class StoreWorkSnippets {
  private StoreWorkSnippets() {}

  static StoredResponse jdbcPhases(Execution execution, String orderId, long amount)
      throws Exception {
    // tag::jdbc-phases[]
    // inside stepped work the engine runs for a claimed request (execution = its Execution)
    Charge charge =
        execution.checkpoint(
            RecoveryPoint.of("order-created"),
            Connection.class,
            tx -> {
              try (PreparedStatement ps =
                  tx.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                ps.setString(1, orderId);
                ps.setLong(2, amount);
                ps.executeUpdate();
              }
              return new Charge(orderId, amount); // returned once the phase and its point committed
            });

    StoredResponse response =
        execution.completeWith(
            Connection.class,
            tx -> {
              try (PreparedStatement ps =
                  tx.prepareStatement("UPDATE orders SET status = 'confirmed' WHERE id = ?")) {
                ps.setString(1, charge.orderId());
                ps.executeUpdate();
              }
              return StoredResponse.ofUtf8(201, "{\"order\":\"" + orderId + "\"}");
            });
    // end::jdbc-phases[]
    return response;
  }

  static Outcome jdbcOneTransaction(
      IdempotencyEngine engine, RecordId id, Fingerprint fingerprint, String orderId, long amount)
      throws Exception {
    // tag::jdbc-one-transaction[]
    Outcome outcome =
        engine.execute(
            id,
            fingerprint,
            Work.inOneTransaction(
                Connection.class,
                tx -> {
                  try (PreparedStatement ps =
                      tx.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                    ps.setString(1, orderId);
                    ps.setLong(2, amount);
                    ps.executeUpdate();
                  }
                  return StoredResponse.ofUtf8(201, "{\"order\":\"" + orderId + "\"}");
                }));
    // end::jdbc-one-transaction[]
    return outcome;
  }

  static StoredResponse dynamodb(Execution execution, String orderId) throws Exception {
    // tag::dynamodb-complete-with[]
    StoredResponse response =
        execution.completeWith(
            DynamoDbTransaction.class,
            tx -> {
              tx.add(
                  TransactWriteItem.builder()
                      .put(
                          Put.builder()
                              .tableName("orders")
                              .item(
                                  Map.of(
                                      "id", AttributeValue.fromS(orderId),
                                      "amount", AttributeValue.fromN("4200")))
                              .conditionExpression("attribute_not_exists(id)")
                              .build())
                      .build());
              return StoredResponse.ofUtf8(201, "{\"order\":\"" + orderId + "\"}");
            });
    // end::dynamodb-complete-with[]
    return response;
  }

  /** The reader's own type. */
  record Charge(String orderId, long amount) {}
}
