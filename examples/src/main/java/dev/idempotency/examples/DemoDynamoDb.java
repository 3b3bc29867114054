package dev.idempotency.examples;

import dev.idempotency.store.dynamodb.DynamoDbKeyStore;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The demo's DynamoDB store: a client (the URL-connection HTTP client; dummy credentials for a
 * local endpoint such as dynalite, the default chain for AWS), a table of its own, created for the
 * run and deleted after it.
 */
final class DemoDynamoDb implements AutoCloseable {
  private final DynamoDbClient client;
  private final DynamoDbKeyStore store;

  private DemoDynamoDb(DynamoDbClient client, DynamoDbKeyStore store) {
    this.client = client;
    this.store = store;
  }

  static DemoDynamoDb open(Optional<String> endpoint, String table) {
    String region = System.getenv().getOrDefault("AWS_REGION", "us-east-1");
    DynamoDbClientBuilder builder =
        DynamoDbClient.builder()
            .region(Region.of(region))
            .httpClient(UrlConnectionHttpClient.create());
    endpoint.ifPresent(
        e ->
            builder
                .endpointOverride(URI.create(e))
                .credentialsProvider(
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("demo", "demo"))));
    DynamoDbClient client = builder.build();
    try {
      return new DemoDynamoDb(
          client, DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build());
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  DynamoDbKeyStore store() {
    return store;
  }

  @Override
  public void close() {
    store.close();
    try {
      client.deleteTable(b -> b.tableName(store.tableName()));
    } catch (ResourceNotFoundException e) {
      // gone already
    } finally {
      client.close();
    }
  }
}
