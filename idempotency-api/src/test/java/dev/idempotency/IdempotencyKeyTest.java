package dev.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.InvalidIdempotencyKeyException.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {

  /** Every printable ASCII character is allowed, and 255 characters is the longest key. */
  @Test
  void acceptsPrintableAsciiUpTo255Characters() {
    StringBuilder all = new StringBuilder();
    for (char c = 0x21; c <= 0x7E; c++) {
      all.append(c);
    }
    assertThat(IdempotencyKey.of(all.toString()).value()).isEqualTo(all.toString());
    assertThat(IdempotencyKey.of("k".repeat(255)).value()).hasSize(255);
  }

  @Test
  void rejectsEmpty() {
    assertThat(rule(() -> IdempotencyKey.of(""))).isEqualTo(Rule.EMPTY);
    assertThat(rule(() -> IdempotencyKey.parseHeader("   "))).isEqualTo(Rule.EMPTY);
    assertThat(rule(() -> IdempotencyKey.parseHeader("\"\""))).isEqualTo(Rule.EMPTY);
  }

  @Test
  void rejects256Characters() {
    InvalidIdempotencyKeyException e =
        catchThrowableOfType(
            InvalidIdempotencyKeyException.class, () -> IdempotencyKey.of("k".repeat(256)));
    assertThat(e.rule()).isEqualTo(Rule.TOO_LONG);
    assertThat(e).hasMessageContaining("at most 255 characters");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a b",
        "tab\there",
        "nl\n",
        "del\u007f",
        "caf\u00e9",
        "emoji\ud83d\ude00",
        "nul\u0000"
      })
  void rejectsCharactersOutsidePrintableAscii(String key) {
    InvalidIdempotencyKeyException e =
        catchThrowableOfType(InvalidIdempotencyKeyException.class, () -> IdempotencyKey.of(key));
    assertThat(e.rule()).isEqualTo(Rule.ILLEGAL_CHARACTER);
    assertThat(e.position()).isBetween(0, key.length() - 1);
    // the message never carries the raw control or non-ASCII character into a log line
    assertThat(e.getMessage()).doesNotContainPattern("[\\x00-\\x1f\\x7f-\\x{10ffff}&&[^…]]");
  }

  /** The quoted structured-field form names the same key as the bare form. */
  @Test
  void quotedHeaderFormEqualsBareForm() {
    assertThat(IdempotencyKey.parseHeader("\"8e03978e-40d5\""))
        .isEqualTo(IdempotencyKey.of("8e03978e-40d5"));
    assertThat(IdempotencyKey.parseHeader("  order-1 \t")).isEqualTo(IdempotencyKey.of("order-1"));
    assertThat(IdempotencyKey.parseHeader("\"a\\\"b\\\\c\"").value()).isEqualTo("a\"b\\c");
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"unterminated", "\"bad\\escape\"", "\"trailing\"x", "\"a\"\"b\""})
  void rejectsMalformedQuotedForm(String header) {
    assertThat(rule(() -> IdempotencyKey.parseHeader(header)))
        .isEqualTo(Rule.MALFORMED_QUOTED_STRING);
  }

  @Test
  void quotedFormStillAppliesTheCharacterRules() {
    assertThat(rule(() -> IdempotencyKey.parseHeader("\"has space\"")))
        .isEqualTo(Rule.ILLEGAL_CHARACTER);
  }

  @Test
  void nullIsRejectedWithTheParameterName() {
    assertThatThrownBy(() -> IdempotencyKey.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value");
  }

  private static Rule rule(Runnable r) {
    return catchThrowableOfType(InvalidIdempotencyKeyException.class, r::run).rule();
  }
}
