package dev.idempotency.core;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns the result of an {@link IdempotentCall} into the bytes the store keeps, and a stored result
 * back into a value for a replay. A codec must decode what it encoded into an equal value, and stay
 * able to decode what it stored for as long as the store keeps it (the retention): a versioned
 * format, or one that ignores unknown fields.
 *
 * <pre>{@code
 * ResultCodec<Invoice> json = ResultCodec.of(mapper::writeValueAsBytes, b -> mapper.readValue(b, Invoice.class));
 * }</pre>
 *
 * @param <R> the result type
 */
public interface ResultCodec<R> {

  /**
   * The bytes to store for {@code result}.
   *
   * @throws Exception if the result cannot be encoded; the call then fails as if its work had
   *     thrown, and the key is released when nothing had committed
   */
  byte[] encode(R result) throws Exception;

  /**
   * The result a replay returns, from the bytes {@link #encode} stored.
   *
   * @throws Exception if the stored bytes cannot be decoded
   */
  R decode(byte[] stored) throws Exception;

  /** A codec of text, stored as UTF-8. */
  static ResultCodec<String> utf8() {
    return of(
        text -> text.getBytes(StandardCharsets.UTF_8),
        stored -> new String(stored, StandardCharsets.UTF_8));
  }

  /** A codec of bytes, stored as they are (copied both ways, so no caller shares an array). */
  static ResultCodec<byte[]> bytes() {
    return of(byte[]::clone, byte[]::clone);
  }

  /**
   * A codec from two functions.
   *
   * @param encoder the bytes to store for a result
   * @param decoder the result for stored bytes
   */
  static <R> ResultCodec<R> of(Encoder<R> encoder, Decoder<R> decoder) {
    Objects.requireNonNull(encoder, "encoder");
    Objects.requireNonNull(decoder, "decoder");
    return new ResultCodec<>() {
      @Override
      public byte[] encode(R result) throws Exception {
        return encoder.encode(result);
      }

      @Override
      public R decode(byte[] stored) throws Exception {
        return decoder.decode(stored);
      }
    };
  }

  /**
   * The encoding half of a codec, as a lambda.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  interface Encoder<R> {
    /** The bytes to store for {@code result}. */
    byte[] encode(R result) throws Exception;
  }

  /**
   * The decoding half of a codec, as a lambda.
   *
   * @param <R> the result type
   */
  @FunctionalInterface
  interface Decoder<R> {
    /** The result for the stored bytes. */
    R decode(byte[] stored) throws Exception;
  }
}
