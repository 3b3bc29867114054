package dev.idempotency.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Hand-written JSON escapes everything RFC 8259 requires and stays valid UTF-8. */
class ProblemJsonTest {
  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    String json =
        new ProblemJson()
            .put("detail", "a\"b\\c\nd\te\u0001f\u007fg\u2028h")
            .put("status", 409)
            .put("retryable", true)
            .toString();
    assertThat(json)
        .isEqualTo(
            "{\"detail\":\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007fg\\u2028h\",\"status\":409,\"retryable\":true}");
  }

  @Test
  void keepsNonAsciiAsUtf8AndReplacesLoneSurrogates() {
    byte[] bytes = new ProblemJson().put("t", "é😀\ud800x").toBytes();
    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"t\":\"é😀\\ufffdx\"}");
  }

  @Test
  void parsesWhatItWrites() {
    String text = new ProblemJson().put("k", "v\"\n").toString();
    assertThat(CanonicalJson.parse(text.getBytes(StandardCharsets.UTF_8))).isPresent();
  }
}
