package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import java.io.IOException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Maps the SDK's exceptions to the SPI's. Unavailable, so that the engine fails closed: the SDK
 * could not reach DynamoDB or got no answer in time (an I/O failure, the API call or attempt
 * timeout), DynamoDB throttled the request and the SDK's own retries gave up, a transaction held
 * the item, or DynamoDB failed on its side (a 5xx). Everything else is a {@link KeyStoreException}
 * that says what to fix: a missing table, missing or refused credentials, a client the SDK cannot
 * send with, an item too large.
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

  /**
   * A write refused because a transaction (or, on a multi-region table, a write in another region)
   * holds the item at that moment: nothing was applied, and the same write may pass a moment later.
   */
  private static final Set<String> WRITE_CONFLICT_CODES =
      Set.of("TransactionConflictException", "ReplicatedWriteConflictException");

  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "UnrecognizedClientException",
          "AccessDeniedException",
          "InvalidSignatureException",
          "MissingAuthenticationTokenException",
          "ExpiredTokenException",
          "IncompleteSignature");

  private StoreErrors() {}

  /** Whether DynamoDB refused the write because a transaction held the item: try again later. */
  public static boolean isWriteConflict(SdkException e) {
    return WRITE_CONFLICT_CODES.contains(errorCode(e));
  }

  /**
   * The SPI's exception for {@code e}, thrown by the SDK while the store did {@code what} on {@code
   * table}.
   */
  public static KeyStoreException map(String what, String table, SdkException e) {
    String where = what + " on DynamoDB table " + table;
    if (e instanceof SdkClientException c) {
      return clientSide(where, c);
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
      String code = errorCode(e);
      if (WRITE_CONFLICT_CODES.contains(code)) {
        return new StoreUnavailableException(
            where
                + " was refused for now ("
                + code
                + "): a transaction held the item; nothing was written",
            e);
      }
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
      if (isItemSize(e.getMessage())) {
        return new KeyStoreException(
            where
                + " failed: the item would exceed DynamoDB's 400 KB. Keep stored responses under"
                + " DynamoDbKeyStore.MAX_RESPONSE_BYTES (the HTTP layer's maxStoredResponseBytes)",
            e);
      }
    }
    return new KeyStoreException(where + " failed: " + e.getMessage(), e);
  }

  /**
   * Whether DynamoDB's message says an item is over 400 KB: "Item size has exceeded the maximum
   * allowed size" (PutItem), "Item size to update has exceeded the maximum allowed size"
   * (UpdateItem). An expression too long says "Expression size", which this does not match.
   */
  public static boolean isItemSize(@Nullable String message) {
    return message != null && message.toLowerCase(Locale.ROOT).contains("item size");
  }

  /**
   * A failure on the client's side. Unavailable when the request may not have reached DynamoDB for
   * a passing reason: a timeout, an interrupted call, an I/O failure (including a host that does
   * not resolve: Java cannot tell a name that does not exist from a resolver that did not answer,
   * so the message points at the configuration too). Otherwise the SDK could not send the request
   * at all, which another try will not change: no credentials, a malformed endpoint.
   */
  private static KeyStoreException clientSide(String where, SdkClientException e) {
    if (e instanceof ApiCallTimeoutException
        || e instanceof ApiCallAttemptTimeoutException
        || e instanceof AbortedException) {
      return new StoreUnavailableException(where + " got no answer in time: " + e.getMessage(), e);
    }
    Throwable io = cause(e, IOException.class);
    if (io instanceof UnknownHostException) {
      return new StoreUnavailableException(
          where
              + " could not resolve DynamoDB's host ("
              + io.getMessage()
              + "); if this lasts, check the client's region and endpoint override",
          e);
    }
    if (io != null) {
      return new StoreUnavailableException(where + " got no answer: " + e.getMessage(), e);
    }
    String message = e.getMessage() == null ? "" : e.getMessage();
    if (message.toLowerCase(Locale.ROOT).contains("credentials")) {
      return new KeyStoreException(
          where
              + " was not sent: the client has no credentials ("
              + message
              + "). Give the DynamoDbClient a credentials provider, or the environment credentials"
              + " the default chain reads",
          e);
    }
    return new KeyStoreException(
        where
            + " was not sent: the SDK refused it ("
            + message
            + "). Check the DynamoDbClient's configuration: region, endpoint override, HTTP client",
        e);
  }

  private static @Nullable Throwable cause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private static String errorCode(SdkException e) {
    if (e instanceof AwsServiceException a && a.awsErrorDetails() != null) {
      String code = a.awsErrorDetails().errorCode();
      return code == null ? "" : code;
    }
    return "";
  }
}
