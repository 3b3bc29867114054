package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The built-in fingerprints: framing without collisions, canonical JSON, selected members. */
class FingerprintStrategyTest {
  private static Fingerprint fp(
      FingerprintStrategy s, String method, String path, String query, String body) {
    return s.fingerprint(
        new FakeRequest(method, path, query), body.getBytes(StandardCharsets.UTF_8));
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

  /**
   * Path and query are framed apart: the path {@code /a?b} is not the path {@code /a} with the
   * query {@code b}, and an absent query is not an empty one.
   */
  @Test
  void pathAndQueryAreFramedApart() {
    FingerprintStrategy s = FingerprintStrategy.methodPathBody();
    assertThat(fp(s, "POST", "/a?b", null, "")).isNotEqualTo(fp(s, "POST", "/a", "b", ""));
    assertThat(fp(s, "POST", "/a", null, "")).isNotEqualTo(fp(s, "POST", "/a", "", ""));
  }

  /**
   * The documented input, version 2: domain, then method, raw path, query (-1 when absent), body,
   * length-framed.
   */
  @Test
  void fingerprintIsTheDocumentedDigest() throws Exception {
    FakeRequest withQuery = new FakeRequest("POST", "/payments", "x=1");
    withQuery.rawPath = "/payments;v=2";
    assertThat(
            FingerprintStrategy.methodPathBody()
                .fingerprint(withQuery, "{}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(expected("POST", "/payments;v=2", "x=1", "{}"));
    assertThat(fp(FingerprintStrategy.methodPathBody(), "PATCH", "/p", null, "body"))
        .isEqualTo(expected("PATCH", "/p", null, "body"));
  }

  /** Written out independently of the implementation, as docs/http.md describes it. */
  private static Fingerprint expected(String method, String path, String query, String body)
      throws Exception {
    java.io.ByteArrayOutputStream in = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream data = new java.io.DataOutputStream(in);
    data.write("idempotency-fingerprint/2 raw\n".getBytes(StandardCharsets.US_ASCII));
    for (String part : new String[] {method, path, query, body}) {
      if (part == null) {
        data.writeLong(-1);
      } else {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        data.writeLong(bytes.length);
        data.write(bytes);
      }
    }
    return Fingerprint.of(
        java.security.MessageDigest.getInstance("SHA-256").digest(in.toByteArray()));
  }

  /**
   * Fingerprints computed on many threads at once (each clones the prototype digest) are all the
   * same.
   */
  @Test
  void concurrentFingerprintsAgree() throws Exception {
    FingerprintStrategy s = FingerprintStrategy.methodPathBody();
    Fingerprint one = fp(s, "POST", "/a", "q", "body");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Fingerprint>> all = new ArrayList<>();
      for (int k = 0; k < 200; k++) {
        all.add(pool.submit(() -> fp(s, "POST", "/a", "q", "body")));
      }
      for (Future<Fingerprint> f : all) {
        assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(one);
      }
    } finally {
      // stopped and awaited: no thread of this test outlives it
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS))
          .as("the pool's threads ended")
          .isTrue();
    }
  }

  /** Two encodings of one JSON document are one request; a different value is another. */
  @Test
  void canonicalJsonIgnoresWhitespaceOrderAndNumberSpelling() {
    FingerprintStrategy s = FingerprintStrategy.canonicalJson();
    Fingerprint a =
        fp(s, "POST", "/p", null, "{\"b\":[1,2.50,{\"y\":null,\"x\":\"\\u00e9\"}],\"a\":true}");
    Fingerprint b =
        fp(
            s,
            "POST",
            "/p",
            null,
            " { \"a\" : true , \"b\" : [ 1.0 , 25e-1 , {\"x\":\"é\",\"y\":null} ] } ");
    assertThat(a).isEqualTo(b);
    assertThat(fp(s, "POST", "/p", null, "{\"a\":false}"))
        .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":true}"));
    // not JSON, or ambiguous JSON: the bytes count
    assertThat(fp(s, "POST", "/p", null, "not json"))
        .isEqualTo(fp(FingerprintStrategy.methodPathBody(), "POST", "/p", null, "not json"));
    assertThat(fp(s, "POST", "/p", null, "{\"a\":1,\"a\":2}"))
        .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":2}"));
  }

  /** Only the named members count; absent differs from null. */
  @Test
  void jsonMembersSelectsTheIdentity() {
    FingerprintStrategy s = FingerprintStrategy.jsonMembers("amount", "currency");
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10,\"currency\":\"EUR\",\"traceId\":\"1\"}"))
        .isEqualTo(
            fp(s, "POST", "/p", null, "{\"traceId\":\"2\",\"currency\":\"EUR\",\"amount\":10.0}"));
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10}"))
        .isNotEqualTo(fp(s, "POST", "/p", null, "{\"amount\":10,\"currency\":null}"));
    assertThat(fp(s, "POST", "/p", null, "{\"amount\":10}"))
        .isNotEqualTo(fp(s, "POST", "/p", null, "{\"amount\":11}"));
  }

  /**
   * Bodies the reader cannot read exactly never share a fingerprint with another body: a signed
   * {@code \\u} escape is not the letter it would parse to, and one lone surrogate is not another.
   */
  @Test
  void malformedJsonNeverCollapsesIntoAnotherBody() {
    for (FingerprintStrategy s :
        List.of(FingerprintStrategy.canonicalJson(), FingerprintStrategy.jsonMembers("a"))) {
      assertThat(fp(s, "POST", "/p", null, "{\"a\":\"\\u+041\"}"))
          .as("\\u+041 vs A")
          .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":\"A\"}"));
      assertThat(fp(s, "POST", "/p", null, "{\"a\":\"\\u-041\"}"))
          .as("\\u-041 vs \\uffbf")
          .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":\"\\uffbf\"}"));
      assertThat(fp(s, "POST", "/p", null, "{\"a\":\"\\ud800\"}"))
          .as("two lone surrogates")
          .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":\"\\ud801\"}"));
      assertThat(fp(s, "POST", "/p", null, "{\"a\":\"\\ud800\"}"))
          .as("a lone surrogate vs U+FFFD")
          .isNotEqualTo(fp(s, "POST", "/p", null, "{\"a\":\"\\ufffd\"}"));
    }
  }

  /**
   * A megabyte of one number's trailing zeros is fingerprinted within the test's deadline (the read
   * is linear).
   */
  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void hostileNumberIsFingerprintedInLinearTime() {
    String body = "{\"amount\":1" + "0".repeat(1 << 20) + "}";
    for (FingerprintStrategy s :
        List.of(FingerprintStrategy.canonicalJson(), FingerprintStrategy.jsonMembers("amount"))) {
      assertThat(fp(s, "POST", "/p", null, body))
          .isNotEqualTo(fp(s, "POST", "/p", null, "{\"amount\":1}"))
          .isEqualTo(fp(s, "POST", "/p", null, "{\"amount\":1e" + (1 << 20) + "}"));
    }
  }
}
