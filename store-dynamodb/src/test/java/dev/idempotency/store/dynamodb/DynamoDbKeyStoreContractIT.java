package dev.idempotency.store.dynamodb;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.tck.KeyStoreContract;
import dev.idempotency.tck.TckContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The whole TCK against dynalite, on the TCK's controlled clock (the store judges time by the
 * engine's {@code now}): a table of its own per test, deleted after it; the store and each peer
 * (another application instance) with their own SDK client and HTTP connections.
 *
 * <p>The transactional rules ({@code TransactionalKeyStoreContract}, SPEC.md section 10) do not run
 * here: dynalite has no {@code TransactWriteItems}, so {@code inPhase} and {@code completeWith}
 * cannot reach a server in these tests. {@code DynamoDbTransactionTest} checks the request they
 * build and how they read its answers; docs/stores-dynamodb.md lists what that leaves unverified.
 */
class DynamoDbKeyStoreContractIT extends KeyStoreContract {
  private String table = "";

  @Override
  protected KeyStore newStore(TckContext context) {
    DynamoDbClient client = Dynalite.client();
    context.onClose(client); // registered first, closed last
    table = Dynalite.table("tck");
    String t = table;
    context.onClose(() -> Dynalite.drop(client, t));
    DynamoDbKeyStore store =
        DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build();
    context.onClose(store);
    return store;
  }

  @Override
  protected KeyStore newPeer(KeyStore store, TckContext context) {
    DynamoDbClient client = Dynalite.client();
    context.onClose(client);
    DynamoDbKeyStore peer = DynamoDbKeyStore.builder(client).tableName(table).build();
    context.onClose(peer);
    return peer;
  }
}
