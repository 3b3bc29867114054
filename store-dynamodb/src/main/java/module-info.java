/**
 * The DynamoDB {@code KeyStore}: one conditional write arbitrates every claim, a fence attribute
 * grows across takeovers, releases and re-creation, and every later write is conditional on it. The
 * {@code DynamoDbClient} (its HTTP client, credentials and region) is the user's.
 */
// The AWS SDK's jars are automatic modules (they carry an Automatic-Module-Name, no descriptor):
// requiring one is what this module has to do, so the lint that warns about it is switched off
// here.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idempotency.store.dynamodb {
  requires static org.jspecify;
  requires transitive dev.idempotency.api;
  // the builder takes a DynamoDbClient and the transaction handle carries TransactWriteItems
  requires transitive software.amazon.awssdk.services.dynamodb;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.awscore;

  exports dev.idempotency.store.dynamodb;
}
