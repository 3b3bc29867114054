package dev.idempotency.admin;

import dev.idempotency.admin.AdminCli.Args;
import dev.idempotency.admin.AdminCli.UsageException;
import dev.idempotency.store.dynamodb.DynamoDbKeyStore;
import dev.idempotency.store.dynamodb.DynamoDbKeyStoreBuilder;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * Opens a DynamoDB store from {@code --dynamodb-table} (required: an account holds many tables),
 * {@code --dynamodb-endpoint} (only for an endpoint other than the region's, such as dynalite or a
 * VPC endpoint) and {@code --region}, each defaulting to its environment variable ({@code
 * $IDEMPOTENCY_ADMIN_DYNAMODB_TABLE}, {@code _ENDPOINT}, {@code $AWS_REGION}). The credentials are
 * {@code $AWS_ACCESS_KEY_ID} and {@code $AWS_SECRET_ACCESS_KEY} (and {@code $AWS_SESSION_TOKEN})
 * when set, else the SDK's default chain (system properties, profile, container or instance role):
 * never options, so that no secret is on the command line.
 */
final class DynamoDbStoreOpener {
  /** One HTTP attempt; the call's timeout bounds the attempts and the SDK's retries together. */
  private static final Duration MAX_ATTEMPT = Duration.ofSeconds(2);

  private DynamoDbStoreOpener() {}

  static OpenStore open(Args args, Map<String, String> env) throws UsageException {
    String table = args.requiredOrEnv("--dynamodb-table", env, "IDEMPOTENCY_ADMIN_DYNAMODB_TABLE");
    Duration timeout = StoreKind.timeout(args);
    @Nullable URI endpoint = endpoint(args, env);
    Optional<String> region = args.orEnv("--region", env, "AWS_REGION");
    // what the SDK does not close itself (the clients given to its builder), newest first
    Deque<SdkAutoCloseable> opened = new ArrayDeque<>();
    try {
      AwsCredentialsProvider credentials = credentials(env);
      if (credentials instanceof SdkAutoCloseable closeable) {
        opened.push(closeable);
      }
      SdkHttpClient http =
          UrlConnectionHttpClient.builder()
              .connectionTimeout(timeout)
              .socketTimeout(timeout)
              .build();
      opened.push(http);
      DynamoDbClientBuilder builder =
          DynamoDbClient.builder().httpClient(http).credentialsProvider(credentials);
      if (endpoint != null) {
        builder.endpointOverride(endpoint);
      }
      region.ifPresent(r -> builder.region(Region.of(r)));
      DynamoDbClient client;
      try {
        client = builder.build();
      } catch (SdkClientException e) {
        // no --region, and none that the SDK's chain finds (profile, instance metadata)
        throw new UsageException("--region (or $AWS_REGION) is required: " + e.getMessage());
      }
      opened.push(client);
      DynamoDbKeyStoreBuilder store =
          DynamoDbKeyStore.builder(client)
              .callTimeout(timeout)
              .attemptTimeout(timeout.compareTo(MAX_ATTEMPT) < 0 ? timeout : MAX_ATTEMPT);
      try {
        store.tableName(table);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--dynamodb-table: " + e.getMessage());
      }
      DynamoDbKeyStore built = store.build();
      opened.push(built::close);
      return new OpenStore(built, () -> closeAll(opened));
    } catch (UsageException | RuntimeException e) {
      closeAll(opened);
      throw e;
    }
  }

  private static @Nullable URI endpoint(Args args, Map<String, String> env) throws UsageException {
    Optional<String> given =
        args.orEnv("--dynamodb-endpoint", env, "IDEMPOTENCY_ADMIN_DYNAMODB_ENDPOINT");
    if (given.isEmpty()) {
      return null;
    }
    try {
      URI uri = new URI(given.get());
      if (uri.getHost() == null
          || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw new URISyntaxException(given.get(), "not an http or https URL with a host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new UsageException("--dynamodb-endpoint: " + e.getMessage());
    }
  }

  private static AwsCredentialsProvider credentials(Map<String, String> env) {
    String id = env.getOrDefault("AWS_ACCESS_KEY_ID", "");
    String secret = env.getOrDefault("AWS_SECRET_ACCESS_KEY", "");
    if (id.isEmpty() || secret.isEmpty()) {
      return DefaultCredentialsProvider.builder().build();
    }
    String token = env.getOrDefault("AWS_SESSION_TOKEN", "");
    AwsCredentials keys =
        token.isEmpty()
            ? AwsBasicCredentials.create(id, secret)
            : AwsSessionCredentials.create(id, secret, token);
    return StaticCredentialsProvider.create(keys);
  }

  private static void closeAll(Deque<SdkAutoCloseable> opened) {
    while (!opened.isEmpty()) {
      opened.pop().close();
    }
  }
}
