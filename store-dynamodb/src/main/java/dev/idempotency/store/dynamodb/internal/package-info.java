/**
 * Implementation of the DynamoDB key store: the item layout, the expressions, the requests built
 * from them, the decoding of items and the mapping of the SDK's exceptions to the SPI's. Not
 * exported; no compatibility promise.
 */
@NullMarked
package dev.idempotency.store.dynamodb.internal;

import org.jspecify.annotations.NullMarked;
