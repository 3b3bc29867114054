package dev.idempotency.grpc;

/** Whether a unary method needs an {@code idempotency-key}. */
public enum GrpcKeyRequirement {
  /** A call without a key is refused ({@code INVALID_ARGUMENT IDEMPOTENCY_KEY_MISSING}). */
  REQUIRED,
  /** A call with a key is guarded; one without runs unguarded. */
  OPTIONAL,
  /** Never guarded: the call passes through, a key it carries is ignored. */
  NONE
}
