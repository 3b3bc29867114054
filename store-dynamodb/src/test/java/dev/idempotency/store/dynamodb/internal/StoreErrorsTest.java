package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReplicatedWriteConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * Which SDK failure is "not now" (unavailable: the engine answers 503) and which is "fix this" (a
 * {@link KeyStoreException} that says how), with the exceptions the SDK throws for each.
 */
class StoreErrorsTest {
  private static KeyStoreException map(Exception e) {
    return StoreErrors.map(
        "claim of s/k", "records", (software.amazon.awssdk.core.exception.SdkException) e);
  }

  private static AwsErrorDetails code(String code) {
    return AwsErrorDetails.builder().errorCode(code).errorMessage(code).build();
  }

  @Test
  void noAnswerInTimeOrAnIoFailureIsUnavailable() {
    assertThat(map(ApiCallTimeoutException.create(5000)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(
            map(
                SdkClientException.builder()
                    .message("Unable to execute HTTP request: Connection refused")
                    .cause(new ConnectException("Connection refused"))
                    .build()))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void aHostThatDoesNotResolveIsUnavailableAndPointsAtTheConfiguration() {
    assertThat(
            map(
                SdkClientException.builder()
                    .message("Unable to execute HTTP request: dynamodb.us-esat-1.amazonaws.com")
                    .cause(new UnknownHostException("dynamodb.us-esat-1.amazonaws.com"))
                    .build()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("check the client's region and endpoint override");
  }

  @Test
  void missingCredentialsAreAConfigurationErrorNotAnOutage() {
    KeyStoreException e =
        map(
            SdkClientException.create(
                "Unable to load credentials from any of the providers in the chain"
                    + " AwsCredentialsProviderChain(...)"));
    assertThat(e).isNotInstanceOf(StoreUnavailableException.class);
    assertThat(e)
        .hasMessageContaining("no credentials")
        .hasMessageContaining("credentials provider");
  }

  @Test
  void aRequestTheSdkRefusedToSendIsAConfigurationError() {
    KeyStoreException e = map(SdkClientException.create("Unable to marshall request to JSON"));
    assertThat(e).isNotInstanceOf(StoreUnavailableException.class);
    assertThat(e).hasMessageContaining("Check the DynamoDbClient's configuration");
  }

  @Test
  void aTransactionHoldingTheItemIsUnavailableAndNamedAsAConflict() {
    TransactionConflictException conflict =
        TransactionConflictException.builder()
            .awsErrorDetails(code("TransactionConflictException"))
            .statusCode(400)
            .build();
    assertThat(StoreErrors.isWriteConflict(conflict)).isTrue();
    assertThat(map(conflict))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("a transaction held the item");
    ReplicatedWriteConflictException replicated =
        ReplicatedWriteConflictException.builder()
            .awsErrorDetails(code("ReplicatedWriteConflictException"))
            .statusCode(400)
            .build();
    assertThat(StoreErrors.isWriteConflict(replicated)).isTrue();
    assertThat(map(replicated)).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void dynamoDbsItemSizeMessagesAreRecognisedAndAnExpressionSizeIsNot() {
    // the wording DynamoDB (and dynalite) use: PutItem, and UpdateItem
    assertThat(StoreErrors.isItemSize("Item size has exceeded the maximum allowed size")).isTrue();
    assertThat(StoreErrors.isItemSize("Item size to update has exceeded the maximum allowed size"))
        .isTrue();
    assertThat(
            StoreErrors.isItemSize(
                "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size"))
        .isFalse();
    DynamoDbException tooLarge =
        (DynamoDbException)
            DynamoDbException.builder()
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .errorCode("ValidationException")
                        .errorMessage("Item size to update has exceeded the maximum allowed size")
                        .build())
                .message("Item size to update has exceeded the maximum allowed size")
                .statusCode(400)
                .build();
    assertThat(map(tooLarge))
        .isNotInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("400 KB");
  }
}
