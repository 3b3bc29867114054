package dev.idempotency.spi;

import dev.idempotency.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Where the next page of a {@link KeyStore#list(RecordQuery) listing} starts: an opaque token that
 * the store put in {@link RecordPage#next()} and takes back in {@link RecordQuery#after()}. Only
 * the store that made a cursor can read it; a person or a script passes it on as it is (it is
 * printable ASCII, safe in a URL and on a command line).
 *
 * <p>A store that pages in record order makes its cursors with {@link #afterRecord(RecordId)} and
 * reads them with {@link #lastRecord()}; a store with its own paging state (a scan position, a last
 * evaluated key) encodes that instead.
 *
 * @param value the token, 1 to {@value #MAX_LENGTH} printable ASCII characters
 */
public record PageCursor(String value) {
  /** The longest token accepted, in characters. */
  public static final int MAX_LENGTH = 4096;

  private static final String RECORD_PREFIX = "r.";

  /**
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code value} is empty, longer than {@value #MAX_LENGTH},
   *     or not printable ASCII
   */
  public PageCursor {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "cursor must be 1 to " + MAX_LENGTH + " characters, but had " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        throw new IllegalArgumentException(
            "cursor must be printable ASCII, but has a character outside it at index " + i);
      }
    }
  }

  /** The cursor of a page that ended with {@code last}, for a store that pages in record order. */
  public static PageCursor afterRecord(RecordId last) {
    Objects.requireNonNull(last, "last");
    String scope =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(last.scope().value().getBytes(StandardCharsets.UTF_8));
    return new PageCursor(RECORD_PREFIX + scope + "." + last.key().value());
  }

  /**
   * The record a cursor from {@link #afterRecord} names.
   *
   * @throws IllegalArgumentException if this cursor was not made by {@link #afterRecord}
   */
  public RecordId lastRecord() {
    int dot = value.indexOf('.', RECORD_PREFIX.length());
    if (!value.startsWith(RECORD_PREFIX) || dot < 0) {
      throw new IllegalArgumentException(
          "cursor " + value + " was not made by this store: pass on the cursor of its last page");
    }
    try {
      String scope =
          new String(
              Base64.getUrlDecoder().decode(value.substring(RECORD_PREFIX.length(), dot)),
              StandardCharsets.UTF_8);
      return RecordId.of(scope, value.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cursor " + value + " was not made by this store: pass on the cursor of its last page",
          e);
    }
  }
}
