package dev.idempotency.grpc.internal;

import io.grpc.Metadata;
import io.grpc.Status;
import org.jspecify.annotations.Nullable;

/**
 * What a unary handler answered: the headers it sent (null when it sent none, a trailers-only
 * answer), its one message serialized by the method's marshaller (null for none), and the status
 * and trailers it closed the call with. Internal: the message array is shared, never modified.
 */
public final class CapturedCall {
  private final @Nullable Metadata headers;
  private final byte @Nullable [] message;
  private final Status status;
  private final Metadata trailers;

  CapturedCall(
      @Nullable Metadata headers, byte @Nullable [] message, Status status, Metadata trailers) {
    this.headers = headers;
    this.message = message;
    this.status = status;
    this.trailers = trailers;
  }

  /** The initial metadata, or null. */
  @Nullable Metadata headers() {
    return headers;
  }

  /** The response message's bytes, or null. */
  byte @Nullable [] message() {
    return message;
  }

  /** The closing status. */
  Status status() {
    return status;
  }

  /** The closing trailers. */
  Metadata trailers() {
    return trailers;
  }
}
