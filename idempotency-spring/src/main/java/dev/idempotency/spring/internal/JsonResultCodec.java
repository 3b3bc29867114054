package dev.idempotency.spring.internal;

import dev.idempotency.core.ResultCodec;
import java.io.ByteArrayOutputStream;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The result of an {@code @Idempotent} method as JSON, read back as the class the method returned.
 * The stored form is an object of two members: {@code "value"}, the result as the application's
 * {@code JsonMapper} writes it, preceded by {@code "type"}, the result's class name, when the
 * result is of a subclass its declared type does not name ({@link ResultType#classToKeep}):
 *
 * <pre>{@code
 * {"type":"com.example.DiscountedInvoice","value":{"number":"INV-1","amountCents":4200,"discountCents":700}}
 * {"value":{"id":"r1","amountCents":4200}}
 * }</pre>
 *
 * A {@code null} return (and every {@code void} method's) is stored as {@code {"value":null}}:
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

  private static final String TYPE = "type";
  private static final String VALUE = "value";

  private final JsonMapper mapper;
  private final ResultType type;
  private final ObjectWriter declaredWriter;

  JsonResultCodec(JsonMapper mapper, ResultType type) {
    this.mapper = mapper;
    this.type = type;
    this.declaredWriter = mapper.writerFor(type.declared());
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
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator json = mapper.createGenerator(bytes)) {
      json.writeStartObject();
      if (result == NULL) {
        json.writeName(VALUE);
        json.writeNull();
      } else {
        Class<?> kept = type.classToKeep(result);
        ObjectWriter writer = declaredWriter;
        if (kept != null) {
          json.writeStringProperty(TYPE, kept.getName());
          writer = mapper.writerFor(type.narrowedTo(kept, mapper.getTypeFactory()));
        }
        json.writeName(VALUE);
        writer.writeValue(json, result);
      }
      json.writeEndObject();
    }
    return bytes.toByteArray();
  }

  @Override
  public Object decode(byte[] stored) {
    try (JsonParser json = mapper.createParser(stored)) {
      expect(json.nextToken() == JsonToken.START_OBJECT, "it is no JSON object");
      JavaType read = type.declared();
      boolean typed = false;
      JsonToken token = json.nextToken();
      if (token == JsonToken.PROPERTY_NAME && TYPE.equals(json.currentName())) {
        expect(json.nextToken() == JsonToken.VALUE_STRING, "its type is no string");
        read = type.narrowedTo(type.storedClass(json.getString()), mapper.getTypeFactory());
        typed = true;
        token = json.nextToken();
      }
      expect(
          token == JsonToken.PROPERTY_NAME && VALUE.equals(json.currentName()),
          "it has no value member" + (typed ? " after its type" : ""));
      Object result =
          json.nextToken() == JsonToken.VALUE_NULL
              ? NULL
              : mapper
                  .readerFor(read)
                  .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS) // the envelope's end
                  .readValue(json);
      expect(json.nextToken() == JsonToken.END_OBJECT, "it has members other than type and value");
      expect(json.nextToken() == null, "it has content after its object");
      return wrap(result);
    }
  }

  private static void expect(boolean condition, String otherwise) {
    if (!condition) {
      throw new IllegalStateException(
          "the stored bytes are not a result an @Idempotent method stored: " + otherwise);
    }
  }
}
