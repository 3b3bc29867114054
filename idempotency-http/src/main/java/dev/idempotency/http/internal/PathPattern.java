package dev.idempotency.http.internal;

import java.util.Objects;

/**
 * A path pattern of endpoint rules: literal segments, {@code *} for exactly one segment, and {@code **} as the last
 * segment for any rest (also none). {@code /payments/**} matches {@code /payments} and {@code /payments/1/refunds};
 * {@code /payments/*} matches {@code /payments/1} only. Immutable.
 */
public final class PathPattern {
  private final String pattern;
  private final String[] segments;

  private PathPattern(String pattern) {
    this.pattern = pattern;
    this.segments = pattern.equals("/") ? new String[0] : pattern.substring(1).split("/", -1);
  }

  /**
   * Parses a pattern.
   *
   * @throws IllegalArgumentException if it does not start with {@code /}, has an empty segment, or uses {@code **}
   *     other than as the whole last segment
   */
  public static PathPattern of(String pattern) {
    Objects.requireNonNull(pattern, "pattern");
    if (!pattern.startsWith("/")) {
      throw new IllegalArgumentException("endpoint path pattern must start with '/', but was \"" + pattern + "\"");
    }
    PathPattern p = new PathPattern(pattern);
    for (int k = 0; k < p.segments.length; k++) {
      String seg = p.segments[k];
      if (seg.isEmpty() && !(k == p.segments.length - 1 && k > 0)) {
        throw new IllegalArgumentException("endpoint path pattern has an empty segment: \"" + pattern + "\"");
      }
      if (seg.contains("**") && (!seg.equals("**") || k != p.segments.length - 1)) {
        throw new IllegalArgumentException(
            "endpoint path pattern may use ** only as its whole last segment: \"" + pattern + "\"");
      }
    }
    return p;
  }

  /** Whether {@code path} matches. */
  public boolean matches(String path) {
    String[] parts = path.equals("/") || path.isEmpty() ? new String[0] : path.substring(1).split("/", -1);
    int k = 0;
    for (; k < segments.length; k++) {
      String seg = segments[k];
      if (seg.equals("**")) {
        return true;
      }
      if (k >= parts.length) {
        return false;
      }
      if (!seg.equals("*") && !seg.equals(parts[k])) {
        return false;
      }
    }
    return k == parts.length;
  }

  @Override
  public String toString() {
    return pattern;
  }
}
