package dev.idempotency.spring.internal;

import dev.idempotency.core.ResultCodec;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The result of an {@code @Idempotent} method as JSON, read back into the method's generic return
 * type. A {@code null} return (and every {@code void} method's) is stored as the JSON {@code null}:
 * {@code IdempotentCall} refuses a null result, because a replay could not tell it from a missing
 * one, but here the stored bytes say it, so the method's result travels as {@link #NULL}.
 */
final class JsonResultCodec implements ResultCodec<Object> {
  /** Stands for a method's {@code null} (or {@code void}) result inside the engine. */
  static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  private static final byte[] JSON_NULL = "null".getBytes(StandardCharsets.US_ASCII);

  private final ObjectWriter writer;
  private final ObjectReader reader;

  JsonResultCodec(JsonMapper mapper, JavaType type) {
    this.writer = mapper.writerFor(type);
    this.reader = mapper.readerFor(type);
  }

  /** The engine's stand-in for the method's result. */
  static Object wrap(@Nullable Object result) {
    return result == null ? NULL : result;
  }

  /** The method's result for the engine's stand-in. */
  static @Nullable Object unwrap(Object result) {
    return result == NULL ? null : result;
  }

  @Override
  public byte[] encode(Object result) {
    return result == NULL ? JSON_NULL.clone() : writer.writeValueAsBytes(result);
  }

  @Override
  public Object decode(byte[] stored) {
    return wrap(reader.readValue(stored));
  }
}
