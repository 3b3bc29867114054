/**
 * The DynamoDB key store: {@link dev.idempotency.store.dynamodb.DynamoDbKeyStore} and its builder,
 * and {@link dev.idempotency.store.dynamodb.DynamoDbTransaction}, the handle through which the work
 * of {@code inPhase}/{@code completeWith} adds its own writes to the store's {@code
 * TransactWriteItems}.
 *
 * <p>{@code docs/stores-dynamodb.md} has the item layout, every condition and update expression
 * verbatim, the table definition, the IAM actions and the capacity each claim outcome costs.
 */
@NullMarked
package dev.idempotency.store.dynamodb;

import org.jspecify.annotations.NullMarked;
