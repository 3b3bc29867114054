package dev.idempotency.examples.docs;

import dev.idempotency.store.dynamodb.DynamoDbKeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.net.URI;
import javax.sql.DataSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The stores' set-up code of docs/stores-jdbc.md and docs/stores-dynamodb.md, compiled (the Redis
 * store's is in store-redis-fenced's tests, which have Lettuce).
 */
final class StoreSnippets {
  private StoreSnippets() {}

  static JdbcKeyStore jdbc(DataSource dataSource) {
    // tag::jdbc[]
    JdbcKeyStore store =
        JdbcKeyStore.builder(dataSource) // your pool
            .tableName("idempotency_records") // the default; [schema.]name
            .build(); // detects the dialect, checks the table
    // end::jdbc[]
    return store;
  }

  static DynamoDbKeyStore dynamodb() {
    // tag::dynamodb[]
    DynamoDbClient client =
        DynamoDbClient.builder()
            .httpClient(UrlConnectionHttpClient.create()) // or ApacheHttpClient.builder()…
            .build(); // region and credentials: the default chains
    DynamoDbKeyStore store =
        DynamoDbKeyStore.builder(client)
            .tableName("idempotency_records") // the default
            .build();
    // end::dynamodb[]
    return store;
  }

  static DynamoDbKeyStore dynamodbLocal() {
    // tag::dynamodb-local[]
    DynamoDbClient local =
        DynamoDbClient.builder()
            .httpClient(UrlConnectionHttpClient.create())
            .endpointOverride(URI.create("http://127.0.0.1:8000"))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
            .build();
    DynamoDbKeyStore store = DynamoDbKeyStore.builder(local).createTableIfMissing().build();
    // end::dynamodb-local[]
    return store;
  }
}
