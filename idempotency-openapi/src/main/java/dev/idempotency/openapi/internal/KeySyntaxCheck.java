package dev.idempotency.openapi.internal;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * Checks a declared key schema against what the server accepts ({@link IdempotencyKey}: 1 to 255
 * characters of printable ASCII). A {@code maxLength} over 255 promises keys the server refuses. A
 * pattern cannot be compared with the key syntax in general, so it is tried on probe values: keys
 * the server refuses that the pattern should not admit, and a UUID, the derivation docs/contract.md
 * offers every client, that it should.
 */
public final class KeySyntaxCheck {
  /**
   * Values the server refuses, each for one rule: a space, a control character, a non-ASCII letter,
   * the empty key. JSON Schema patterns are unanchored, so a pattern admits a value when it finds a
   * match anywhere in it, as a validator would.
   */
  private static final List<String> ILLEGAL =
      List.of("order 4711", "order\t4711", "ordér-4711", "");

  private static final String UUID = "3f1c2a4e-8d3b-4c6f-9a7e-1b2c3d4e5f60";

  private KeySyntaxCheck() {}

  /** The findings on a key header's {@code maxLength} and {@code pattern}; none when both fit. */
  public static List<Finding> check(@Nullable Integer maxLength, @Nullable String pattern) {
    List<Finding> findings = new ArrayList<>();
    if (maxLength != null && maxLength > IdempotencyKey.MAX_LENGTH) {
      findings.add(
          new Finding(
              Outcome.FAILING,
              "key_max_length_over_255",
              "the key's maxLength is "
                  + maxLength
                  + ", but the server refuses keys over "
                  + IdempotencyKey.MAX_LENGTH
                  + " characters (400 idempotency_key_invalid, rule too_long): declare maxLength: "
                  + IdempotencyKey.MAX_LENGTH
                  + " or less"));
    }
    if (maxLength != null && maxLength < 1) {
      findings.add(
          new Finding(
              Outcome.FAILING,
              "key_max_length_below_1",
              "the key's maxLength is " + maxLength + ": no key the server accepts fits it"));
    }
    if (pattern != null) {
      findings.addAll(checkPattern(pattern));
    }
    return findings;
  }

  private static List<Finding> checkPattern(String pattern) {
    Pattern compiled;
    try {
      compiled = Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      return List.of(
          new Finding(
              Outcome.WARNING,
              "key_pattern_unchecked",
              "the key's pattern does not compile as a Java regular expression, so it was not"
                  + " checked against the key syntax: "
                  + e.getDescription()));
    }
    List<Finding> findings = new ArrayList<>();
    for (String value : ILLEGAL) {
      if (compiled.matcher(value).find() && !isKey(value)) {
        findings.add(
            new Finding(
                Outcome.FAILING,
                "key_pattern_admits_refused_keys",
                "the key's pattern admits "
                    + quote(value)
                    + ", which the server refuses: keys are 1 to 255 characters of printable ASCII"
                    + " (0x21 to 0x7E); anchor the pattern and restrict it to those"));
        break; // one example says it; the others would repeat the same fix
      }
    }
    if (!compiled.matcher(UUID).find()) {
      findings.add(
          new Finding(
              Outcome.WARNING,
              "key_pattern_refuses_uuid",
              "the key's pattern refuses a UUID ("
                  + UUID
                  + "), the key docs/contract.md tells clients without a business id to send"));
    }
    return findings;
  }

  private static boolean isKey(String value) {
    try {
      IdempotencyKey.of(value);
      return true;
    } catch (InvalidIdempotencyKeyException e) {
      return false;
    }
  }

  private static String quote(String value) {
    return "\"" + value.replace("\t", "\\t") + "\"";
  }
}
