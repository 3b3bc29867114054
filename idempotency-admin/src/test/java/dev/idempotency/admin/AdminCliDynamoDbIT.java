package dev.idempotency.admin;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.dynamodb.DynamoDbKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * {@link AdminCliContract} on dynalite ({@code IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT}): a table of the
 * test's own, deleted afterwards. dynalite takes any credentials, but the SDK signs every request
 * with some: the tool gets them from {@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY} in
 * its environment, as a shell would pass them.
 */
class AdminCliDynamoDbIT extends AdminCliContract {
  private static final Map<String, String> CREDENTIALS =
      Map.of("AWS_ACCESS_KEY_ID", "test", "AWS_SECRET_ACCESS_KEY", "test");

  private String endpoint = "";
  private String region = "";
  private String table = "";
  private DynamoDbClient client;
  private DynamoDbKeyStore store;

  @Override
  KeyStore openStore() {
    List<String> env =
        TestDatabases.require(
            "IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT", "IDEMPOTENCY_TEST_DYNAMODB_REGION");
    endpoint = env.get(0);
    region = env.get(1);
    table = "admin-it-" + UUID.randomUUID();
    client =
        DynamoDbClient.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.of(region))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .httpClient(
                UrlConnectionHttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(2))
                    .socketTimeout(Duration.ofSeconds(5))
                    .build())
            .build();
    store = DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build();
    return store;
  }

  @Override
  void dropStore() {
    if (client == null) {
      return;
    }
    try {
      if (store != null) {
        store.close();
      }
      client.deleteTable(b -> b.tableName(table));
    } catch (ResourceNotFoundException e) {
      // never made, or gone already
    } finally {
      client.close();
    }
  }

  @Override
  List<String> storeOptions() {
    return List.of("--dynamodb-endpoint", endpoint, "--region", region, "--dynamodb-table", table);
  }

  @Override
  Map<String, String> env() {
    return CREDENTIALS;
  }

  @Override
  List<String> unreachableStoreOptions(int port) {
    return List.of(
        "--dynamodb-endpoint",
        "http://127.0.0.1:" + port,
        "--region",
        "us-east-1",
        "--dynamodb-table",
        "nobody-listens",
        "--timeout",
        "1");
  }
}
