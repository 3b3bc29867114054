package dev.idempotency.client;

import java.util.Objects;
import java.util.UUID;

/**
 * The {@code Idempotency-Key} of one logical operation: minted once, before the first attempt, and
 * sent unchanged on every attempt. A key minted per attempt defeats the server's duplicate collapse
 * (every retry looks like a new request), which is why nothing in this library mints one inside the
 * retry loop: the key is fixed when the call is built.
 *
 * <p>Prefer the derivations in this order:
 *
 * <ol>
 *   <li>{@link #forEvent(String, String)}: derived from the business event the call carries out,
 *       such as {@code order-confirm-<orderId>}. It survives everything: a crash and restart of the
 *       caller, a re-delivered message, a re-run batch. The best key, whenever the operation has a
 *       natural identity.
 *   <li>{@link #forRequest(String)}: scoped to the caller's own request (an inbound request id, a
 *       job id, a message id), so the caller's own retries of that request reuse it.
 *   <li>{@link #random()}: a random UUID, kept across this call's retries only. It protects against
 *       duplicates caused by this client's retries, not against a caller that restarts and calls
 *       again. The {@code java.net.http} adapter uses it automatically for POST and PATCH when the
 *       caller gave no key.
 * </ol>
 *
 * <p>A key is 1 to {@value #MAX_LENGTH} characters of printable ASCII (0x21 to 0x7E), the server's
 * contract. The name differs from the server side's {@code dev.idempotency.IdempotencyKey} on
 * purpose: this module has no dependencies, and code that uses both needs no qualified names.
 * Immutable and thread-safe; equal by value.
 */
public final class OperationKey {
  /** The longest key the server accepts. */
  public static final int MAX_LENGTH = 255;

  /** How a key was derived, best first. */
  public enum Derivation {
    /** From the business event: stable across caller restarts and redeliveries. */
    EVENT,
    /** From the caller's own request or job id. */
    REQUEST,
    /** A random UUID for this logical call only. */
    RANDOM,
    /** Given verbatim by the caller ({@link #of(String)}). */
    EXPLICIT
  }

  private final String value;
  private final Derivation derivation;

  private OperationKey(String value, Derivation derivation) {
    this.value = value;
    this.derivation = derivation;
  }

  /**
   * The best key: derived from the business event, {@code <operation>-<entityId>}, such as {@code
   * forEvent("order-confirm", "4711")} → {@code order-confirm-4711}.
   *
   * @param operation what is done, a stable name such as {@code order-confirm}
   * @param entityId the identity of the thing it is done to
   * @return the key
   * @throws IllegalArgumentException if either part is empty, or the key breaks the key syntax
   */
  public static OperationKey forEvent(String operation, String entityId) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(entityId, "entityId");
    if (operation.isEmpty() || entityId.isEmpty()) {
      throw new IllegalArgumentException(
          "operation and entityId must not be empty, but were '"
              + operation
              + "' and '"
              + entityId
              + "'");
    }
    return create(operation + "-" + entityId, Derivation.EVENT);
  }

  /**
   * The second-best key: the caller's own request, job or message id.
   *
   * @param requestId an id that stays the same when the caller's own request is retried
   * @return the key
   * @throws IllegalArgumentException if the id breaks the key syntax
   */
  public static OperationKey forRequest(String requestId) {
    Objects.requireNonNull(requestId, "requestId");
    return create(requestId, Derivation.REQUEST);
  }

  /**
   * The fallback: a random UUID. Mint it once per logical operation and keep it for all its
   * attempts.
   *
   * @return a new random key
   */
  public static OperationKey random() {
    return new OperationKey(UUID.randomUUID().toString(), Derivation.RANDOM);
  }

  /**
   * A key given verbatim, for example read from an incoming {@code Idempotency-Key} header.
   *
   * @param value the key
   * @return the key
   * @throws IllegalArgumentException if the key is empty, too long, or has a character outside 0x21
   *     to 0x7E
   */
  public static OperationKey of(String value) {
    Objects.requireNonNull(value, "value");
    return create(value, Derivation.EXPLICIT);
  }

  private static OperationKey create(String value, Derivation derivation) {
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "idempotency key must be 1 to " + MAX_LENGTH + " characters, but had " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        throw new IllegalArgumentException(
            "idempotency key must be printable ASCII (0x21-0x7E), but had 0x"
                + Integer.toHexString(c)
                + " at index "
                + i);
      }
    }
    return new OperationKey(value, derivation);
  }

  /**
   * The header value.
   *
   * @return the key
   */
  public String value() {
    return value;
  }

  /**
   * How the key was made.
   *
   * @return the derivation
   */
  public Derivation derivation() {
    return derivation;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OperationKey k && k.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
