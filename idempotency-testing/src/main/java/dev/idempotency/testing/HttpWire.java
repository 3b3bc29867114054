package dev.idempotency.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The little of HTTP/1.1 that {@link FaultInjectingProxy} reads and writes itself, on raw sockets.
 */
final class HttpWire {
  /** The blank line that ends a message's head. */
  static final byte[] END_OF_HEAD = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  /** Headers about one connection, not the request (RFC 9110 7.6.1): never forwarded. */
  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "keep-alive", "proxy-connection", "te", "upgrade", "http2-settings");

  private static final int MAX_HEAD_BYTES = 65_536;

  private HttpWire() {}

  /**
   * Reads a head up to and including the blank line, and returns it without it; null if the stream
   * ended first.
   */
  static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < END_OF_HEAD.length) {
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) {
          return null;
        }
        throw new IOException("request head cut off after " + head.size() + " bytes");
      }
      head.write(b);
      matched = b == END_OF_HEAD[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      if (head.size() > MAX_HEAD_BYTES) {
        throw new IOException("request head too large");
      }
    }
    byte[] bytes = head.toByteArray();
    return Arrays.copyOf(bytes, bytes.length - END_OF_HEAD.length);
  }

  /** The header lines after the first line, by lower-case name, every value in order. */
  static Map<String, List<String>> headers(String[] lines) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers
          .computeIfAbsent(
              lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .add(lines[i].substring(colon + 1).trim());
    }
    return headers;
  }

  /**
   * The head to forward a request with: its request line and end-to-end headers, {@code
   * extraHeaderLine} if not null, and {@code Connection: close}, so that the server's response ends
   * where its connection does.
   */
  static byte[] forwardedHead(String[] lines, String extraHeaderLine) {
    // hop-by-hop too: the header names the Connection header lists (RFC 9110 7.6.1)
    Set<String> dropped = new HashSet<>(HOP_BY_HOP);
    headers(lines)
        .getOrDefault("connection", List.of())
        .forEach(
            v ->
                Arrays.stream(v.split(","))
                    .map(o -> o.trim().toLowerCase(Locale.ROOT))
                    .forEach(dropped::add));
    StringBuilder head = new StringBuilder(lines[0]).append("\r\n");
    for (int i = 1; i < lines.length; i++) {
      if (!dropped.contains(
          lines[i].substring(0, lines[i].indexOf(':')).trim().toLowerCase(Locale.ROOT))) {
        head.append(lines[i]).append("\r\n");
      }
    }
    if (extraHeaderLine != null) {
      head.append(extraHeaderLine).append("\r\n");
    }
    return head.append("Connection: close\r\n\r\n")
        .toString()
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Writes a short plain-text answer of the proxy's own, with {@code Retry-After}, and closes the
   * exchange.
   */
  static void answer(OutputStream out, String status, long retryAfterSeconds) throws IOException {
    byte[] body = ("proxy: " + status + "\n").getBytes(StandardCharsets.US_ASCII);
    out.write(
        ("HTTP/1.1 "
                + status
                + "\r\nRetry-After: "
                + retryAfterSeconds
                + "\r\nContent-Type: text/plain\r\n"
                + "Content-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(body);
  }

  /**
   * Where the head of {@code message} ends (the index of its blank line), or -1 if it has no
   * complete head.
   */
  static int headEnd(byte[] message) {
    outer:
    for (int i = 0; i + END_OF_HEAD.length <= message.length; i++) {
      for (int j = 0; j < END_OF_HEAD.length; j++) {
        if (message[i + j] != END_OF_HEAD[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
