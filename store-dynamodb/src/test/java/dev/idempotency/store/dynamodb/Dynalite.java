package dev.idempotency.store.dynamodb;

import dev.idempotency.testing.TestDatabases;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The tests' DynamoDB: the dynalite server {@code scripts/services.sh} starts, at the endpoint its
 * {@code IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT} names (failing in CI and skipping locally without it),
 * or any other endpoint a test starts itself. Each client is one application instance: its own HTTP
 * client, its own connections.
 */
final class Dynalite {
  /** Per JVM, so that test runs sharing the machine's dynalite never meet each other's tables. */
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  private static final AtomicInteger TABLES = new AtomicInteger();

  private Dynalite() {}

  /** The endpoint of the shared dynalite; fails (CI) or skips (locally) without it. */
  static URI endpoint() {
    List<String> env =
        TestDatabases.require(
            "IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT", "IDEMPOTENCY_TEST_DYNAMODB_REGION");
    return URI.create(env.get(0));
  }

  /** A new client of the shared dynalite. */
  static DynamoDbClient client() {
    return client(endpoint());
  }

  /** A new client of {@code endpoint}, with the SDK's default retries. */
  static DynamoDbClient client(URI endpoint) {
    return DynamoDbClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .httpClient(
            UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(2))
                .socketTimeout(Duration.ofSeconds(5))
                .build())
        .build();
  }

  /** A table name of its own: {@code prefix}, this JVM's run and a counter. */
  static String table(String prefix) {
    return prefix + "-" + RUN + "-" + TABLES.incrementAndGet();
  }

  /** Deletes {@code table}, if it is still there. */
  static void drop(DynamoDbClient client, String table) {
    try {
      client.deleteTable(b -> b.tableName(table));
    } catch (ResourceNotFoundException e) {
      // gone already
    }
  }
}
