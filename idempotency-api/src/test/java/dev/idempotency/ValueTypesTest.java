package dev.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueTypesTest {

  /**
   * A stored response cannot be changed through the arrays and lists it was built from or hands
   * out.
   */
  @Test
  void storedResponseIsImmutableThroughDefensiveCopies() {
    byte[] body = {1, 2, 3};
    List<String> values = new ArrayList<>(List.of("application/json"));
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", values);
    StoredResponse r = StoredResponse.of(201, headers, body);

    body[0] = 9;
    values.add("text/plain");
    headers.put("Location", List.of("/x"));
    r.body()[1] = 9;

    assertThat(r.body()).containsExactly(1, 2, 3);
    assertThat(r.headers()).containsOnlyKeys("Content-Type");
    assertThat(r.header("content-type")).containsExactly("application/json");
    assertThatThrownBy(() -> r.headers().put("X", List.of()))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void storedResponseRejectsBadInput() {
    assertThatThrownBy(() -> StoredResponse.of(99, new byte[0]))
        .hasMessageContaining("status must be 100 to 999");
    Map<String, List<String>> dup = new LinkedHashMap<>();
    dup.put("A", List.of("1"));
    dup.put("a", List.of("2"));
    assertThatThrownBy(() -> StoredResponse.of(200, dup, new byte[0]))
        .hasMessageContaining("repeated");
    assertThatThrownBy(
            () -> StoredResponse.of(200, Map.of("X", List.of("a\r\nSet-Cookie: x")), new byte[0]))
        .hasMessageContaining("CR, LF or NUL");
  }

  @Test
  void storedResponseKeepsHeaderOrderAndEqualityByValue() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("Z-Last", List.of("1"));
    h.put("A-First", List.of("2"));
    StoredResponse r =
        StoredResponse.of(200, h, "x".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(r.headers().keySet()).containsExactly("Z-Last", "A-First");
    assertThat(r).isEqualTo(StoredResponse.of(200, new LinkedHashMap<>(h), new byte[] {'x'}));
  }

  /** size() counts the body and every header name and value in UTF-8 bytes, and nothing else. */
  @Test
  void storedResponseSizeCountsBodyAndHeadersInUtf8() {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Location", List.of("/p/1")); // 8 + 4
    headers.put("X-Note", List.of("caf\u00e9", "\u20ac", "\ud83d\ude00")); // 6 + 5 + 3 + 4
    StoredResponse r = StoredResponse.of(201, headers, new byte[100]);

    assertThat(r.size()).isEqualTo(100 + 12 + 18);
    assertThat(StoredResponse.of(204, new byte[0]).size()).isZero();
  }

  @Test
  void fenceTokensArePositiveAndOrdered() {
    assertThatThrownBy(() -> FenceToken.of(0)).hasMessageContaining("fence token must be > 0");
    assertThat(FenceToken.of(2).isNewerThan(FenceToken.of(1))).isTrue();
    assertThat(FenceToken.of(1).compareTo(FenceToken.of(2))).isNegative();
  }

  @Test
  void recoveryPointValidatesNameAndCopiesData() {
    byte[] data = {7};
    RecoveryPoint p = RecoveryPoint.of("charge-requested", data);
    data[0] = 0;
    assertThat(p.data()).containsExactly(7);
    assertThatThrownBy(() -> RecoveryPoint.of("has space"))
        .hasMessageContaining("recovery point name");
    assertThatThrownBy(() -> RecoveryPoint.of("big", new byte[RecoveryPoint.MAX_DATA_BYTES + 1]))
        .hasMessageContaining("at most " + RecoveryPoint.MAX_DATA_BYTES);
  }

  @Test
  void scopeAndFingerprintValidate() {
    assertThatThrownBy(() -> Scope.of("")).hasMessageContaining("scope must be 1 to 255");
    assertThatThrownBy(() -> Scope.of("a\nb")).hasMessageContaining("control characters");
    assertThat(Scope.of("tenant-ü")).isEqualTo(Scope.of("tenant-ü"));
    // UTF-8 turns a lone surrogate into '?': "t\uD800" and "t?" would be one record in a store
    assertThatThrownBy(() -> Scope.of("t\uD800")).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> Scope.of("\uDC00t")).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> Scope.of("t\uDC00\uD800")).hasMessageContaining("index 1");
    assertThat(Scope.of("t\uD83D\uDE00").value()).isEqualTo("t😀"); // a pair is one character
    assertThat(Fingerprint.fromHex("00ff").hex()).isEqualTo("00ff");
    assertThatThrownBy(() -> Fingerprint.of(new byte[0]))
        .hasMessageContaining("fingerprint must be 1 to 64");
    assertThat(RecordId.of("a", "k")).isNotEqualTo(RecordId.of("b", "k"));
  }
}
