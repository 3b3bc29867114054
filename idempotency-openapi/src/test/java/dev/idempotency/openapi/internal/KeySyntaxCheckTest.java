package dev.idempotency.openapi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.openapi.Finding;
import dev.idempotency.openapi.Outcome;
import org.junit.jupiter.api.Test;

/** The declared key schema against the server's syntax: 1 to 255 characters of printable ASCII. */
class KeySyntaxCheckTest {
  @Test
  void maxLengthUpTo255FitsAndOverItFails() {
    assertThat(KeySyntaxCheck.check(255, null)).isEmpty();
    assertThat(KeySyntaxCheck.check(64, null)).isEmpty();
    assertThat(KeySyntaxCheck.check(null, null)).isEmpty();
    assertThat(KeySyntaxCheck.check(256, null))
        .extracting(Finding::code, Finding::outcome)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("key_max_length_over_255", Outcome.FAILING));
    assertThat(KeySyntaxCheck.check(0, null))
        .extracting(Finding::code)
        .containsExactly("key_max_length_below_1");
  }

  @Test
  void aPatternWithinPrintableAsciiPasses() {
    assertThat(KeySyntaxCheck.check(null, "^[\\x21-\\x7E]+$")).isEmpty();
    assertThat(KeySyntaxCheck.check(null, "^[A-Za-z0-9-]{1,255}$")).isEmpty();
  }

  @Test
  void aPatternAdmittingARefusedKeyFails() {
    // unanchored: finds "a" in "order 4711"
    assertThat(KeySyntaxCheck.check(null, "[a-z]"))
        .extracting(Finding::code)
        .containsExactly("key_pattern_admits_refused_keys");
    // anchored, but \S admits non-ASCII letters
    assertThat(KeySyntaxCheck.check(null, "^\\S+$"))
        .extracting(Finding::code)
        .containsExactly("key_pattern_admits_refused_keys");
    // anchored, but admits the empty key
    assertThat(KeySyntaxCheck.check(null, "^[a-z0-9-]*$"))
        .extracting(Finding::code)
        .containsExactly("key_pattern_admits_refused_keys");
  }

  @Test
  void aPatternRefusingAUuidWarnsAndOneThatDoesNotCompileIsSaidUnchecked() {
    assertThat(KeySyntaxCheck.check(null, "^[0-9]+$"))
        .extracting(Finding::code, Finding::outcome)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("key_pattern_refuses_uuid", Outcome.WARNING));
    assertThat(KeySyntaxCheck.check(null, "^[a-z+$"))
        .extracting(Finding::code)
        .containsExactly("key_pattern_unchecked");
  }
}
