package dev.idempotency.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fingerprint's JSON reader: strict (what it cannot read exactly falls back to the raw bytes,
 * never to a value another body also has), and linear in the body, so a hostile body cannot spend
 * the CPU before the claim.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CanonicalJsonTest {
  private static Optional<Object> parse(String json) {
    return CanonicalJson.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String canonical(String json) {
    return CanonicalJson.text(
        parse(json).orElseThrow(() -> new AssertionError("should parse: " + json)));
  }

  /**
   * {@code \\u} takes exactly four hex digits: a sign is not one ({@code \\u+041} would read as
   * {@code A}).
   */
  @Test
  void unicodeEscapeNeedsFourHexDigits() {
    assertThat(parse("\"\\u+041\""))
        .as("\\u+041 must not parse (Integer.parseInt accepts a sign)")
        .isEmpty();
    assertThat(parse("\"\\u-041\"")).as("\\u-041").isEmpty();
    assertThat(parse("\"\\u 041\"")).isEmpty();
    assertThat(parse("\"\\u04\"")).isEmpty();
    assertThat(parse("\"\\u004G\"")).isEmpty();
    assertThat(canonical("\"\\u0041\\u00e9\\u00E9\"")).isEqualTo("\"Aéé\"");
  }

  /**
   * An escaped surrogate that is not half of a pair has no code point: such a string cannot be
   * canonicalised without collapsing it into another (every lone surrogate would become U+FFFD), so
   * the body is not read as JSON.
   */
  @Test
  void loneSurrogateEscapesAreRefused() {
    for (String lone :
        List.of(
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800x\"",
            "\"\\udc00\\ud800\"",
            "\"\\ud800\\u0041\"",
            "{\"\\ud800\":1}",
            "[\"a\\udfff\"]")) {
      assertThat(parse(lone)).as(lone).isEmpty();
    }
    assertThat(canonical("\"\\ud83d\\ude00\"")).isEqualTo("\"\ud83d\ude00\"");
  }

  /**
   * Numbers are canonicalised exactly as {@code BigDecimal.stripTrailingZeros().toString()} writes
   * them.
   */
  @Test
  void numbersAreCanonicalisedAsTheDecimalValue() {
    List<String> samples =
        List.of(
            "0",
            "-0",
            "0.000",
            "0e5",
            "1",
            "-1",
            "10",
            "100",
            "1.0",
            "1.50",
            "123.456",
            "0.1",
            "0.001",
            "0.0000001",
            "0.00000012",
            "1e6",
            "1E+6",
            "1e-6",
            "1e-7",
            "12.5e-9",
            "-12.5e3",
            "1000e-3",
            "120e1",
            "0.000123e3",
            "9007199254740993",
            "1e400",
            "-1.000000000000000000000000001");
    for (String n : samples) {
      BigDecimal d = new BigDecimal(n);
      assertThat(canonical(n))
          .as(n)
          .isEqualTo(d.signum() == 0 ? "0" : d.stripTrailingZeros().toString());
    }
    Random random = new Random(42);
    for (int k = 0; k < 5000; k++) {
      StringBuilder n = new StringBuilder();
      if (random.nextBoolean()) {
        n.append('-');
      }
      n.append(random.nextInt(4) == 0 ? "0" : Integer.toString(1 + random.nextInt(9)));
      int intDigits = random.nextInt(4);
      if (n.charAt(n.length() - 1) != '0') {
        for (int j = 0; j < intDigits; j++) {
          n.append(random.nextInt(3) == 0 ? '0' : (char) ('0' + random.nextInt(10)));
        }
      }
      if (random.nextBoolean()) {
        n.append('.');
        for (int j = 0, f = 1 + random.nextInt(5); j < f; j++) {
          n.append(random.nextInt(2) == 0 ? '0' : (char) ('0' + random.nextInt(10)));
        }
      }
      if (random.nextBoolean()) {
        n.append(random.nextBoolean() ? 'e' : 'E')
            .append(random.nextBoolean() ? "-" : random.nextBoolean() ? "+" : "")
            .append(random.nextInt(30));
      }
      BigDecimal d = new BigDecimal(n.toString());
      assertThat(canonical(n.toString()))
          .as(n.toString())
          .isEqualTo(d.signum() == 0 ? "0" : d.stripTrailingZeros().toString());
    }
  }

  /**
   * A number whose exponent does not fit in 64 bits is not read as JSON (the raw bytes are
   * fingerprinted).
   */
  @Test
  void absurdExponentsFallBackToTheBytes() {
    assertThat(parse("1e99999999999999999999")).isEmpty();
    assertThat(canonical("1e000000000000000000000000000003")).isEqualTo("1E+3");
  }

  /** A number of a million digits, mostly trailing zeros, is read in time linear in its length. */
  @Test
  void hostileNumbersAreReadInLinearTime() {
    String zeros = "0".repeat(1 << 20);
    assertThat(canonical("1" + zeros)).isEqualTo("1E+" + (1 << 20));
    assertThat(canonical("[1" + zeros + ",0." + zeros + "1,-1." + zeros + "e-5]"))
        .isEqualTo("[1E+" + (1 << 20) + ",1E-" + ((1 << 20) + 1) + ",-0.00001]");
    String digits = "7".repeat(1 << 20);
    assertThat(canonical("0." + digits)).isEqualTo("0." + digits);
  }
}
