package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The built-in fingerprints: framing without collisions, canonical JSON, selected members. */
class FingerprintStrategyTest {
  private static Fingerprint fp(FingerprintStrategy s, String method, String path, String query, String body) {
    return s.fingerprint(new FakeRequest(method, path, query), body.getBytes(StandardCharsets.UTF_8));
  }

  /** Moving bytes between path and body changes the fingerprint: every part is length-framed. */
  @Test
  void framingIsUnambiguous() {
    FingerprintStrategy s = FingerprintStrategy.methodPathBody();
    assertThat(fp(s, "POST", "/a", null, "b")).isNotEqualTo(fp(s, "POST", "/ab", null, ""));
    assertThat(fp(s, "POST", "/a", null, "b")).isEqualTo(fp(s, "POST", "/a", null, "b"));
    assertThat(fp(s, "POST", "/a", null, "b")).isNotEqualTo(fp(s, "PATCH", "/a", null, "b"));
    assertThat(fp(s, "POST", "/a", "x=1", "b")).isNotEqualTo(fp(s, "POST", "/a", "x=2", "b"));
    assertThat(fp(s, "POST", "/a", null, "b").bytes()).hasSize(32);
  }

  /** Two encodings of one JSON document are one request; a different value is another. */
  @Test
  void canonicalJsonIgnoresWhitespaceOrderAndNumberSpelling() {
    FingerprintStrategy s = FingerprintStrategy.canonicalJson();
    Fingerprint a = fp(s, "POST", "/p", null, "{\"b\":[1,2.50,{\"y\":null,\"x\":\"\\u00e9\"}],\"a\":true}");
    Fingerprint b = fp(s, "POST", "/p", null, " { \"a\" : true , \"b\" : [ 1.0 , 25e-1 , {\"x\":\"é\",\"y\":null} ] } ");
    assertThat(a).isEqualTo(b);
    assertThat(fp(s, "POST", "/p", null, "{\"a\":false}")).isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":true}"));
    // not JSON, or ambiguous JSON: the bytes count
    assertThat(fp(s, "POST", "/p", null, "not json")).isEqualTo(fp(FingerprintStrategy.methodPathBody(), "POST", "/p",
        null, "not json"));
    assertThat(fp(s, "POST", "/p", null, "{\"a\":1,\"a\":2}")).isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":2}"));
  }

  /** Only the named members count; absent differs from null. */
  @Test
  void jsonMembersSelectsTheIdentity() {
    FingerprintStrategy s = FingerprintStrategy.jsonMembers("amount", "currency");
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10,\"currency\":\"EUR\",\"traceId\":\"1\"}"))
        .isEqualTo(fp(s, "POST", "/p", null, "{\"traceId\":\"2\",\"currency\":\"EUR\",\"amount\":10.0}"));
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10}"))
        .isNotEqualTo(fp(s, "POST", "/p", null, "{\"amount\":10,\"currency\":null}"));
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10}")).isNotEqualTo(fp(s, "POST", "/p", null, "{\"amount\":11}"));
  }
}
