package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.spi.KeyStoreException;
import dev.idempotency.spi.StoreUnavailableException;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Maps the SDK's exceptions to the SPI's. Unavailable, so that the engine fails closed: the SDK
 * could not reach DynamoDB or got no answer in time ({@link SdkClientException}: connection refused
 * or reset, the API call or attempt timeout), DynamoDB throttled the request and the SDK's own
 * retries gave up, or DynamoDB failed on its side (a 5xx). Everything else is a {@link
 * KeyStoreException} that says what to fix: a missing table, refused credentials, an item too
 * large.
 */
public final class StoreErrors {
  /** Error codes that mean "not now" rather than "never": the request may succeed later. */
  private static final Set<String> UNAVAILABLE_CODES =
      Set.of(
          "ProvisionedThroughputExceededException",
          "ThrottlingException",
          "RequestLimitExceeded",
          "LimitExceededException",
          "InternalServerError",
          "InternalFailure",
          "ServiceUnavailable",
          "TransactionInProgressException");

  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "UnrecognizedClientException",
          "AccessDeniedException",
          "InvalidSignatureException",
          "MissingAuthenticationTokenException",
          "ExpiredTokenException",
          "IncompleteSignature");

  private StoreErrors() {}

  /**
   * The SPI's exception for {@code e}, thrown by the SDK while the store did {@code what} on {@code
   * table}.
   */
  public static KeyStoreException map(String what, String table, SdkException e) {
    String where = what + " on DynamoDB table " + table;
    if (e instanceof SdkClientException) {
      return new StoreUnavailableException(
          where + " got no answer: " + e.getMessage() + " (nothing was decided for a claim)", e);
    }
    if (e instanceof ResourceNotFoundException) {
      return new KeyStoreException(
          where
              + " failed: the table does not exist. Create it from the definition in"
              + " docs/stores-dynamodb.md (DynamoDbKeyStore.createTableRequest(\""
              + table
              + "\")), or for development and tests with the builder's createTableIfMissing().",
          e);
    }
    if (e instanceof AwsServiceException a) {
      String code = a.awsErrorDetails() == null ? "" : a.awsErrorDetails().errorCode();
      if (UNAVAILABLE_CODES.contains(code) || a.isThrottlingException() || a.statusCode() >= 500) {
        return new StoreUnavailableException(
            where
                + " refused for now ("
                + code
                + ", HTTP "
                + a.statusCode()
                + "): "
                + e.getMessage(),
            e);
      }
      if (CREDENTIAL_CODES.contains(code)) {
        return new KeyStoreException(
            where
                + " was refused ("
                + code
                + "): check the client's credentials and that its role may call the actions"
                + " docs/stores-dynamodb.md lists",
            e);
      }
      String message = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
      if (message.contains("item size")) {
        return new KeyStoreException(
            where
                + " failed: the item would exceed DynamoDB's 400 KB. Keep stored responses under"
                + " DynamoDbKeyStore.MAX_RESPONSE_BYTES (the HTTP layer's maxStoredResponseBytes)",
            e);
      }
    }
    return new KeyStoreException(where + " failed: " + e.getMessage(), e);
  }
}
