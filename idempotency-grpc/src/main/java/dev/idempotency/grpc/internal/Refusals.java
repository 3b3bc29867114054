package dev.idempotency.grpc.internal;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.idempotency.StoredResponse;
import dev.idempotency.grpc.GrpcIdempotencyMetadata;
import dev.idempotency.grpc.IdempotencyErrorReason;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The binding's own answers: a status with a {@code google.rpc.Status} in {@code
 * grpc-status-details-bin} (an ErrorInfo with the reason; a RetryInfo with the delay for the
 * retryable ones), the reason again in a plain trailer, and for the retryable ones gRPC's {@code
 * grpc-retry-pushback-ms}, which gRPC's own retry policy waits for.
 */
public final class Refusals {
  /** gRPC A6's server pushback: the client's retry policy waits this long before its next try. */
  static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private Refusals() {}

  /**
   * The answer to a retry of a call that was processed but whose answer could not be stored (the
   * replay of a {@code StoredResponse.notStoredMarker}).
   */
  public static Refusal notStored() {
    return of(
        IdempotencyErrorReason.IDEMPOTENCY_RESPONSE_NOT_STORED,
        "the request was processed, but its response could not be stored for replay; retrying"
            + " will not process it again",
        Map.of(),
        null);
  }

  /**
   * The not-stored marker stored in place of an answer of {@code bytes} larger than {@code limit}:
   * the engine's ({@link StoredResponse#notStoredMarker}), which the engine stores whatever its
   * policy says of the marker's status, and which a replay answers with {@link #notStored()}.
   *
   * @param status the status the stored form of the answer had
   */
  public static StoredResponse notStoredMarker(int status, long bytes, long limit) {
    return StoredResponse.notStoredMarker(
        status,
        "the answer was " + bytes + " bytes, over maxStoredResponseBytes (" + limit + " bytes)");
  }

  /** A refusal as a status and its trailers. */
  public record Refusal(Status status, Metadata trailers) {}

  /**
   * The refusal for {@code reason}.
   *
   * @param reason why
   * @param message the status message, for people
   * @param metadata the ErrorInfo's metadata (a key rule, a method)
   * @param retryAfter the RetryInfo delay and pushback, for a retryable reason; null for none
   * @return the status and trailers to close the call with
   */
  public static Refusal of(
      IdempotencyErrorReason reason,
      String message,
      Map<String, String> metadata,
      @Nullable Duration retryAfter) {
    com.google.rpc.Status.Builder details =
        com.google.rpc.Status.newBuilder()
            .setCode(reason.code().value())
            .setMessage(message)
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setReason(reason.name())
                        .setDomain(IdempotencyErrorReason.DOMAIN)
                        .putAllMetadata(metadata)
                        .build()));
    if (retryAfter != null) {
      details.addDetails(
          Any.pack(
              RetryInfo.newBuilder()
                  .setRetryDelay(
                      com.google.protobuf.Duration.newBuilder()
                          .setSeconds(retryAfter.getSeconds())
                          .setNanos(retryAfter.getNano()))
                  .build()));
    }
    StatusRuntimeException e = StatusProto.toStatusRuntimeException(details.build());
    Metadata trailers = e.getTrailers() != null ? e.getTrailers() : new Metadata();
    trailers.put(GrpcIdempotencyMetadata.ERROR_REASON_TRAILER, reason.name());
    if (retryAfter != null) {
      trailers.put(PUSHBACK, Long.toString(retryAfter.toMillis()));
    }
    return new Refusal(e.getStatus(), trailers);
  }
}
