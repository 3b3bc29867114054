package dev.idempotency.store.jdbc.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoredResponse;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes a stored response's headers as one binary column: a version byte, then the header count
 * and, per header, the name and its values as length-prefixed UTF-8. Order and spelling are kept.
 * Stateless.
 */
public final class ResponseCodec {
  private static final int VERSION = 1;

  private ResponseCodec() {}

  /** The headers of {@code response}, encoded. */
  public static byte[] encodeHeaders(StoredResponse response) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeInt(response.headers().size());
      for (Map.Entry<String, List<String>> e : response.headers().entrySet()) {
        writeString(out, e.getKey());
        out.writeInt(e.getValue().size());
        for (String v : e.getValue()) {
          writeString(out, v);
        }
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Rebuilds a response from its three columns. */
  public static StoredResponse decode(int status, byte[] headers, byte[] body) {
    try {
      DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(headers));
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new KeyStoreException(
            "stored response headers have unknown encoding version "
                + version
                + "; was the table written by a newer version of idempotency-store-jdbc?");
      }
      int count = in.readInt();
      Map<String, List<String>> map = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        String name = readString(in);
        int n = in.readInt();
        List<String> values = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
          values.add(readString(in));
        }
        map.put(name, values);
      }
      return StoredResponse.of(status, map, body);
    } catch (IOException | RuntimeException e) {
      if (e instanceof KeyStoreException k) {
        throw k;
      }
      throw new KeyStoreException("stored response headers are corrupt: " + e, e);
    }
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readString(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IOException("bad string length " + n);
    }
    return new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }
}
