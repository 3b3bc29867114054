package dev.idempotency.benchmarks;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.dynamodb.DynamoDbKeyStore;
import java.net.URI;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * {@link DynamoDbKeyStore} on the dynalite test server against the least DynamoDB needs for the
 * same outcomes, both through one SDK client: a claim is one conditional {@code PutItem} ({@code
 * attribute_not_exists(pk)}), a completion one {@code UpdateItem} by key, a replay or a mismatch
 * one consistent {@code GetItem} with the fingerprint compared. dynalite's times say nothing about
 * DynamoDB's latency, only about what the store adds to the same requests.
 */
final class DynamoDbFixture implements Fixture {
  private final DynamoDbClient client;
  private final String table = "bench-records-" + UUID.randomUUID();
  private final String baselineTable = "bench-baseline-" + UUID.randomUUID();
  private DynamoDbKeyStore store;
  private final Baseline baseline = new ItemBaseline();

  DynamoDbFixture() {
    String endpoint = System.getenv("IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT");
    if (endpoint == null) {
      throw new IllegalStateException(
          "IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT is not set: start the test servers with"
              + " eval \"$(bash scripts/services.sh)\" (benchmarks/run.sh does it)");
    }
    client =
        DynamoDbClient.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
            .httpClient(UrlConnectionHttpClient.create())
            .build();
    store = createTables();
  }

  private DynamoDbKeyStore createTables() {
    DynamoDbKeyStore s =
        DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build();
    // the baseline's table has the same definition; the store's builder creates it
    DynamoDbKeyStore.builder(client)
        .tableName(baselineTable)
        .createTableIfMissing()
        .build()
        .close();
    return s;
  }

  @Override
  public KeyStore store() {
    return store;
  }

  @Override
  public Baseline baseline() {
    return baseline;
  }

  /** Deletes both tables and creates them again: the fastest way to empty them on dynalite. */
  @Override
  public void clear() {
    store.close();
    drop(table);
    drop(baselineTable);
    store = createTables();
  }

  @Override
  public void close() {
    store.close();
    drop(table);
    drop(baselineTable);
    client.close();
  }

  private void drop(String name) {
    try {
      client.deleteTable(b -> b.tableName(name));
    } catch (ResourceNotFoundException e) {
      // gone already
    }
  }

  private static String pk(String scope, String key) {
    return scope.length() + ":" + scope + "/" + key;
  }

  /** The least DynamoDB requests for each outcome, on the same client. */
  private final class ItemBaseline implements Baseline {
    @Override
    public void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response) {
      try {
        client.putItem(
            b ->
                b.tableName(baselineTable)
                    .item(
                        Map.of(
                            "pk", AttributeValue.fromS(pk(scope, key)),
                            "st", AttributeValue.fromS("I"),
                            "fp", AttributeValue.fromB(SdkBytes.fromByteArray(fingerprint))))
                    .conditionExpression("attribute_not_exists(pk)"));
      } catch (ConditionalCheckFailedException e) {
        return; // taken: the baseline's loser stops here
      }
      client.updateItem(
          b ->
              b.tableName(baselineTable)
                  .key(Map.of("pk", AttributeValue.fromS(pk(scope, key))))
                  .updateExpression("SET st = :c, body = :b")
                  .expressionAttributeValues(
                      Map.of(
                          ":c", AttributeValue.fromS("C"),
                          ":b", AttributeValue.fromB(SdkBytes.fromByteArray(response)))));
    }

    @Override
    public byte[] replay(String scope, String key, byte[] fingerprint) {
      Map<String, AttributeValue> item = read(scope, key);
      return Arrays.equals(item.get("fp").b().asByteArray(), fingerprint)
          ? item.get("body").b().asByteArray()
          : new byte[0];
    }

    @Override
    public boolean mismatch(String scope, String key, byte[] fingerprint) {
      return !Arrays.equals(read(scope, key).get("fp").b().asByteArray(), fingerprint);
    }

    private Map<String, AttributeValue> read(String scope, String key) {
      return client
          .getItem(
              b ->
                  b.tableName(baselineTable)
                      .key(Map.of("pk", AttributeValue.fromS(pk(scope, key))))
                      .consistentRead(true))
          .item();
    }
  }
}
