package dev.idempotency;

import java.util.Objects;

/**
 * Thrown when a string is not a valid {@link IdempotencyKey}. The {@link #rule()} says which rule
 * of the key contract the input broke, so an HTTP layer can answer {@code 400
 * idempotency_key_invalid} with a precise detail and a test can assert on the rule rather than on
 * message text.
 *
 * <p>The message never echoes more than the first 32 characters of the input, with control
 * characters escaped, so that a hostile key cannot inject text into logs.
 */
public final class InvalidIdempotencyKeyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The rules of the key contract, each with the sentence an error message uses. */
  public enum Rule {
    /** The key has no characters. */
    EMPTY("must not be empty"),
    /** The key has more than {@value IdempotencyKey#MAX_LENGTH} characters. */
    TOO_LONG("must be at most " + IdempotencyKey.MAX_LENGTH + " characters"),
    /**
     * The key has a character outside printable ASCII (0x21 to 0x7E): a space, a control character,
     * non-ASCII.
     */
    ILLEGAL_CHARACTER("may contain only printable ASCII characters (0x21 to 0x7E)"),
    /**
     * The header value starts with a double quote but is not a well-formed structured-field string.
     */
    MALFORMED_QUOTED_STRING(
        "in quoted form must be a well-formed structured-field string (RFC 8941 3.3.3)");

    private final String requirement;

    Rule(String requirement) {
      this.requirement = requirement;
    }

    /** The requirement, as a sentence fragment: "must not be empty". */
    public String requirement() {
      return requirement;
    }
  }

  private final Rule rule;
  private final int position;

  InvalidIdempotencyKeyException(Rule rule, int position, String input) {
    super(message(rule, position, input));
    this.rule = Objects.requireNonNull(rule, "rule");
    this.position = position;
  }

  private static String message(Rule rule, int position, String input) {
    StringBuilder sb = new StringBuilder("Idempotency key ").append(rule.requirement());
    if (position >= 0) {
      sb.append(" (offending character at index ").append(position).append(')');
    }
    sb.append("; input started with \"").append(IdempotencyKey.escapeForLog(input, 32)).append('"');
    return sb.toString();
  }

  /** The rule the input broke. */
  public Rule rule() {
    return rule;
  }

  /**
   * The zero-based index of the first offending character, or -1 when the rule is not about one
   * character.
   */
  public int position() {
    return position;
  }
}
