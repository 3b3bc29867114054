package dev.idempotency.grpc;

import io.grpc.Metadata;

/** The metadata keys of the gRPC contract. */
public final class GrpcIdempotencyMetadata {
  /** The request's key: the same syntax and limits as HTTP's {@code Idempotency-Key}. */
  public static final String KEY = "idempotency-key";

  /** The trailer {@code idempotent-replayed: true} on every replayed response. */
  public static final String REPLAYED = "idempotent-replayed";

  /**
   * The trailer that names the {@link IdempotencyErrorReason} of a refusal in plain text, for
   * clients that do not decode {@code grpc-status-details-bin}.
   */
  public static final String ERROR_REASON = "idempotency-error-reason";

  /** {@link #KEY} as a metadata key. */
  public static final Metadata.Key<String> KEY_HEADER =
      Metadata.Key.of(KEY, Metadata.ASCII_STRING_MARSHALLER);

  /** {@link #REPLAYED} as a metadata key. */
  public static final Metadata.Key<String> REPLAYED_TRAILER =
      Metadata.Key.of(REPLAYED, Metadata.ASCII_STRING_MARSHALLER);

  /** {@link #ERROR_REASON} as a metadata key. */
  public static final Metadata.Key<String> ERROR_REASON_TRAILER =
      Metadata.Key.of(ERROR_REASON, Metadata.ASCII_STRING_MARSHALLER);

  private GrpcIdempotencyMetadata() {}
}
