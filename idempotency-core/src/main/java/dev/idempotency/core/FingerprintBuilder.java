package dev.idempotency.core;

import dev.idempotency.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * Builds a {@link Fingerprint} of a request that is not an HTTP request: a message, an event, a
 * method's arguments. The fingerprint is the SHA-256 of a purpose, then each field added, in order,
 * each framed by its 8-byte big-endian length (an absent field is the length -1 and no bytes), so
 * that one purpose's sequence of fields decodes back into one request: {@code ("ab", "c")} never
 * collides with {@code ("a", "bc")}, nor an absent field with an empty one.
 *
 * <pre>{@code
 * Fingerprint fingerprint = FingerprintBuilder.forPurpose("create-invoice/1")
 *     .add(event.customerId()).add(event.amountCents()).add(event.currency()).build();
 * }</pre>
 *
 * <p>Fields are framed, not typed: {@code add(long)} writes the value's 8 bytes, the same frame as
 * an 8-byte array. Give each kind of request its own purpose, and change the purpose's version when
 * its fields change, so that no stored fingerprint of another shape ever equals a new one. What to
 * include is the request's meaning (the same fields a mismatch should catch); what to leave out is
 * what legitimately differs between retries (a send timestamp, a trace id).
 *
 * <p>Not thread-safe: one builder per fingerprint.
 */
public final class FingerprintBuilder {
  private static final long ABSENT = -1;

  private final MessageDigest sha = sha256();
  private final byte[] length = new byte[Long.BYTES]; // reused for every frame

  private FingerprintBuilder(String purpose) {
    frame(purpose.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Starts a fingerprint for requests of one kind.
   *
   * @param purpose names the kind of request and its field layout, for example {@code
   *     "create-invoice/1"}
   * @throws IllegalArgumentException if {@code purpose} is blank
   */
  public static FingerprintBuilder forPurpose(String purpose) {
    Objects.requireNonNull(purpose, "purpose");
    if (purpose.isBlank()) {
      throw new IllegalArgumentException(
          "the fingerprint's purpose must name the kind of request, but was blank");
    }
    return new FingerprintBuilder(purpose);
  }

  /** Adds a field of bytes (a serialized message, a body). */
  public FingerprintBuilder add(byte[] field) {
    frame(Objects.requireNonNull(field, "field"));
    return this;
  }

  /** Adds a text field, as UTF-8. */
  public FingerprintBuilder add(String field) {
    return add(Objects.requireNonNull(field, "field").getBytes(StandardCharsets.UTF_8));
  }

  /** Adds an absent field (a null value): it differs from every present one, the empty included. */
  public FingerprintBuilder addAbsent() {
    putLength(ABSENT);
    return this;
  }

  /** Adds a number field, as its 8 big-endian bytes. */
  public FingerprintBuilder add(long field) {
    putLength(Long.BYTES);
    putLength(field);
    return this;
  }

  /** The fingerprint of the purpose and the fields added so far. The builder is spent. */
  public Fingerprint build() {
    return Fingerprint.of(sha.digest());
  }

  private void frame(byte[] field) {
    putLength(field.length);
    sha.update(field);
  }

  private void putLength(long value) {
    long rest = value;
    for (int k = Long.BYTES - 1; k >= 0; k--) {
      length[k] = (byte) rest;
      rest >>>= 8;
    }
    sha.update(length);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }
}
