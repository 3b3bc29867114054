package dev.idempotency.grpc.internal;

import dev.idempotency.StoredResponse;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A unary call's answer as a {@link StoredResponse}, and back.
 *
 * <p>The body is the response message's bytes, as the method's marshaller wrote them. The status is
 * the HTTP status Google's {@code google.rpc.Code} maps the gRPC code to (OK 200, INVALID_ARGUMENT
 * 400, UNAVAILABLE 503, …), so the engine's {@code StoredResponsePolicy} judges gRPC and HTTP
 * answers alike ({@code storeAllExcept(429, 503)} keeps RESOURCE_EXHAUSTED and UNAVAILABLE out of
 * both). The exact code and message travel in headers whose names no metadata key can have (a
 * colon): {@code :grpc-status}, {@code :grpc-message} (percent-encoded as on the wire), {@code
 * :headers} when the handler sent initial metadata, {@code :message} when it sent a message (an
 * empty message is zero bytes, so the body alone cannot tell). Metadata entries are {@code h:name}
 * (initial metadata) and {@code t:name} (trailers), binary values in base64.
 */
public final class StoredCallCodec {
  static final String STATUS = ":grpc-status";
  static final String MESSAGE_TEXT = ":grpc-message";
  static final String HEADERS_SENT = ":headers";
  static final String MESSAGE_SENT = ":message";
  static final String DETAILS = "grpc-status-details-bin";

  private StoredCallCodec() {}

  /**
   * Encodes {@code call}, keeping of its metadata only the keys in {@code storedKeys} and the
   * status details.
   *
   * @param call the handler's answer
   * @param storedKeys the metadata keys (lower case) worth replaying
   * @return the response to store
   */
  public static StoredResponse encode(CapturedCall call, Set<String> storedKeys) {
    Map<String, List<String>> fields = new LinkedHashMap<>();
    fields.put(STATUS, List.of(Integer.toString(call.status().getCode().value())));
    String description = call.status().getDescription();
    if (description != null) {
      fields.put(MESSAGE_TEXT, List.of(percentEncode(description)));
    }
    Metadata headers = call.headers();
    if (headers != null) {
      fields.put(HEADERS_SENT, List.of("sent"));
      copy(headers, "h:", storedKeys, fields);
    }
    if (call.message() != null) {
      fields.put(MESSAGE_SENT, List.of("present"));
    }
    copy(call.trailers(), "t:", storedKeys, fields);
    byte[] body = call.message() != null ? call.message() : new byte[0];
    return StoredResponse.of(httpStatusOf(call.status().getCode()), fields, body);
  }

  /**
   * Decodes a stored answer.
   *
   * @param stored what the store kept
   * @return the answer to replay
   * @throws IllegalStateException if the record was not stored by this binding (a key also used by
   *     an HTTP request or an {@code IdempotentCall})
   */
  public static CapturedCall decode(StoredResponse stored) {
    String code =
        stored
            .firstHeader(STATUS)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the stored response (status "
                            + stored.status()
                            + ") was not stored by the gRPC binding: it has no "
                            + STATUS));
    Status status = Status.fromCodeValue(Integer.parseInt(code));
    String description = stored.firstHeader(MESSAGE_TEXT).orElse(null);
    if (description != null) {
      status = status.withDescription(percentDecode(description));
    }
    Metadata headers = stored.firstHeader(HEADERS_SENT).isPresent() ? new Metadata() : null;
    Metadata trailers = new Metadata();
    for (Map.Entry<String, List<String>> e : stored.headers().entrySet()) {
      String name = e.getKey();
      if (name.startsWith("h:") && headers != null) {
        put(headers, name.substring(2), e.getValue());
      } else if (name.startsWith("t:")) {
        put(trailers, name.substring(2), e.getValue());
      }
    }
    byte[] message = stored.firstHeader(MESSAGE_SENT).isPresent() ? stored.body() : null;
    return new CapturedCall(headers, message, status, trailers);
  }

  private static void copy(
      Metadata from, String prefix, Set<String> storedKeys, Map<String, List<String>> to) {
    for (String name : from.keys()) {
      if (!storedKeys.contains(name) && !name.equals(DETAILS)) {
        continue;
      }
      List<String> values = new ArrayList<>();
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        Iterable<byte[]> all = from.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER));
        if (all != null) {
          all.forEach(v -> values.add(Base64.getEncoder().encodeToString(v)));
        }
      } else {
        Iterable<String> all = from.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
        if (all != null) {
          all.forEach(values::add);
        }
      }
      to.put(prefix + name, values);
    }
  }

  private static void put(Metadata to, String name, List<String> values) {
    if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      Metadata.Key<byte[]> key = Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
      values.forEach(v -> to.put(key, Base64.getDecoder().decode(v)));
    } else {
      Metadata.Key<String> key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
      values.forEach(v -> to.put(key, v));
    }
  }

  /**
   * The HTTP status {@code google.rpc.Code} documents for each gRPC code (CANCELLED as 499, the
   * convention of that document).
   *
   * @param code the gRPC code
   * @return the HTTP status
   */
  public static int httpStatusOf(Status.Code code) {
    switch (code) {
      case OK:
        return 200;
      case CANCELLED:
        return 499;
      case INVALID_ARGUMENT:
      case FAILED_PRECONDITION:
      case OUT_OF_RANGE:
        return 400;
      case DEADLINE_EXCEEDED:
        return 504;
      case NOT_FOUND:
        return 404;
      case ALREADY_EXISTS:
      case ABORTED:
        return 409;
      case PERMISSION_DENIED:
        return 403;
      case UNAUTHENTICATED:
        return 401;
      case RESOURCE_EXHAUSTED:
        return 429;
      case UNIMPLEMENTED:
        return 501;
      case UNAVAILABLE:
        return 503;
      case UNKNOWN:
      case INTERNAL:
      case DATA_LOSS:
      default:
        return 500;
    }
  }

  /**
   * Percent-encodes as gRPC does {@code grpc-message}: every byte outside 0x20 to 0x7E, and '%'.
   */
  static String percentEncode(String text) {
    StringBuilder sb = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c < 0x20 || c > 0x7E || c == '%') {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        sb.append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      } else {
        sb.append((char) c);
      }
    }
    return sb.toString();
  }

  static String percentDecode(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' && i + 2 < text.length()) {
        out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
