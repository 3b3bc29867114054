package dev.idempotency.client.internal;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The two members of an RFC 9457 problem body the classifier reads: {@code code} and {@code
 * retryable}, taken from the top-level object only. A small scanner rather than a JSON library: the
 * module has no dependencies, and a body it cannot read simply yields neither member.
 */
public final class ProblemDetails {
  public static final ProblemDetails NONE = new ProblemDetails(null, null);

  private final @Nullable String code;
  private final @Nullable Boolean retryable;

  public ProblemDetails(@Nullable String code, @Nullable Boolean retryable) {
    this.code = code;
    this.retryable = retryable;
  }

  /** Returns the {@code code} member, or {@code null}. */
  public @Nullable String code() {
    return code;
  }

  /** Returns the {@code retryable} member, or {@code null}. */
  public @Nullable Boolean retryable() {
    return retryable;
  }

  public static ProblemDetails parse(byte @Nullable [] body) {
    if (body == null || body.length == 0) {
      return NONE;
    }
    return parse(new String(body, StandardCharsets.UTF_8));
  }

  public static ProblemDetails parse(String json) {
    try {
      return new Scanner(json).topLevel();
    } catch (RuntimeException e) {
      return NONE;
    }
  }

  /**
   * A forgiving recursive-descent walk over one JSON value; it records two members of the top-level
   * object.
   */
  private static final class Scanner {
    private final String s;
    private int i;
    private @Nullable String code;
    private @Nullable Boolean retryable;

    Scanner(String s) {
      this.s = s;
    }

    ProblemDetails topLevel() {
      ws();
      if (peek() != '{') {
        return NONE;
      }
      i++;
      ws();
      if (peek() == '}') {
        return NONE;
      }
      while (true) {
        ws();
        String name = string();
        ws();
        expect(':');
        ws();
        if (name.equals("code") && peek() == '"') {
          code = string();
        } else if (name.equals("retryable")
            && (s.startsWith("true", i) || s.startsWith("false", i))) {
          retryable = s.startsWith("true", i);
          i += retryable ? 4 : 5;
        } else {
          skipValue();
        }
        ws();
        char c = s.charAt(i++);
        if (c == '}') {
          return new ProblemDetails(code, retryable);
        }
        if (c != ',') {
          throw new IllegalArgumentException("expected , or }");
        }
      }
    }

    private void skipValue() {
      char c = peek();
      if (c == '"') {
        string();
      } else if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        i++;
        ws();
        if (peek() == close) {
          i++;
          return;
        }
        while (true) {
          ws();
          if (close == '}') {
            string();
            ws();
            expect(':');
            ws();
          }
          skipValue();
          ws();
          char d = s.charAt(i++);
          if (d == close) {
            return;
          }
          if (d != ',') {
            throw new IllegalArgumentException("expected , or " + close);
          }
        }
      } else {
        while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
          i++;
        }
      }
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = s.charAt(i++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          char e = s.charAt(i++);
          switch (e) {
            case 'n' -> out.append('\n');
            case 't' -> out.append('\t');
            case 'r' -> out.append('\r');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'u' -> {
              out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            default -> out.append(e);
          }
        } else {
          out.append(c);
        }
      }
    }

    private void expect(char c) {
      if (s.charAt(i) != c) {
        throw new IllegalArgumentException("expected " + c);
      }
      i++;
    }

    private char peek() {
      return s.charAt(i);
    }

    private void ws() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }
  }
}
