package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The headers column's encoding: what a replay decodes on every call. */
class ResponseCodecTest {
  private static final byte[] BODY = "{\"id\":42}".getBytes(StandardCharsets.UTF_8);

  @Test
  void headersComeBackInOrderWithTheirSpellingAndValues() {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Set-Cookie", List.of("a=1", "b=2", ""));
    headers.put("X-Empty", List.of());
    headers.put("X-Grüße", List.of("naïve ✓"));
    StoredResponse response = StoredResponse.of(201, headers, BODY);

    StoredResponse decoded =
        ResponseCodec.decode(201, ResponseCodec.encodeHeaders(response), BODY.clone());

    assertThat(decoded).isEqualTo(response);
    assertThat(decoded.headers().keySet())
        .containsExactly("Content-Type", "Set-Cookie", "X-Empty", "X-Grüße");
  }

  @Test
  void noHeadersDecodeToNone() {
    StoredResponse response = StoredResponse.of(204, new byte[0]);
    assertThat(ResponseCodec.decode(204, ResponseCodec.encodeHeaders(response), new byte[0]))
        .isEqualTo(response);
  }

  @Test
  void aTruncatedColumnIsReportedAsCorrupt() {
    byte[] whole =
        ResponseCodec.encodeHeaders(
            StoredResponse.of(200, Map.of("Content-Type", List.of("text/plain")), BODY));
    for (int length = 1; length < whole.length; length++) {
      byte[] cut = Arrays.copyOf(whole, length);
      assertThatThrownBy(() -> ResponseCodec.decode(200, cut, BODY))
          .as("cut to %d of %d bytes", length, whole.length)
          .isInstanceOf(KeyStoreException.class)
          .hasMessageContaining("corrupt");
    }
  }

  @Test
  void aLengthPastTheEndIsReportedAsCorrupt() {
    byte[] bad = {1, 0, 0, 0, 1, 0x7f, 0, 0, 0, 'X'};
    assertThatThrownBy(() -> ResponseCodec.decode(200, bad, BODY))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("corrupt");
  }

  @Test
  void anUnknownVersionNamesTheCause() {
    assertThatThrownBy(() -> ResponseCodec.decode(200, new byte[] {2, 0, 0, 0, 0}, BODY))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("unknown encoding version 2");
  }
}
