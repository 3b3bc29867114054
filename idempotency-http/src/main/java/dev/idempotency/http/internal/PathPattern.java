package dev.idempotency.http.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A path pattern of endpoint rules: literal segments, {@code *} for exactly one segment, and {@code
 * **} as the last segment for any rest (also none). {@code /payments/**} matches {@code /payments}
 * and {@code /payments/1/refunds}; {@code /payments/*} matches {@code /payments/1} only. Immutable.
 *
 * <p>A path is matched by its segments as a router would see them, so that no spelling that reaches
 * a guarded handler slips past a rule that requires a key: empty segments are skipped (a trailing
 * slash, {@code //}), {@code .} is skipped and {@code ..} drops the segment before it, a path
 * parameter ({@code ;jsessionid=...}) is cut off its segment, and letters are compared ignoring
 * case. Matching more spellings than the application routes costs at most a key on a request that
 * did not need one; matching fewer lets a request run unguarded.
 */
public final class PathPattern {
  private final String pattern;
  private final String[] segments;

  private PathPattern(String pattern, String[] segments) {
    this.pattern = pattern;
    this.segments = segments;
  }

  /**
   * Parses a pattern.
   *
   * @throws IllegalArgumentException if it does not start with {@code /}, has an empty segment, or
   *     uses {@code **} other than as the whole last segment
   */
  public static PathPattern of(String pattern) {
    Objects.requireNonNull(pattern, "pattern");
    if (!pattern.startsWith("/")) {
      throw new IllegalArgumentException(
          "endpoint path pattern must start with '/', but was \"" + pattern + "\"");
    }
    String[] segments = pattern.equals("/") ? new String[0] : pattern.substring(1).split("/", -1);
    for (int k = 0; k < segments.length; k++) {
      String seg = segments[k];
      if (seg.isEmpty() && !(k == segments.length - 1 && k > 0)) {
        throw new IllegalArgumentException(
            "endpoint path pattern has an empty segment: \"" + pattern + "\"");
      }
      if (seg.contains("**") && (!seg.equals("**") || k != segments.length - 1)) {
        throw new IllegalArgumentException(
            "endpoint path pattern may use ** only as its whole last segment: \"" + pattern + "\"");
      }
    }
    if (segments.length > 0 && segments[segments.length - 1].isEmpty()) {
      segments =
          Arrays.copyOf(
              segments, segments.length - 1); // a trailing slash adds no segment to a path either
    }
    return new PathPattern(pattern, segments);
  }

  /** Whether {@code path} matches. */
  public boolean matches(String path) {
    List<String> parts = segments(path);
    int k = 0;
    for (; k < segments.length; k++) {
      String seg = segments[k];
      if (seg.equals("**")) {
        return true;
      }
      if (k >= parts.size()) {
        return false;
      }
      if (!seg.equals("*") && !seg.equalsIgnoreCase(parts.get(k))) {
        return false;
      }
    }
    return k == parts.size();
  }

  /**
   * The segments of {@code path} a router resolves: no empty ones, no dot segments, no path
   * parameters.
   */
  private static List<String> segments(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/", -1)) {
      int parameters = part.indexOf(';');
      String segment = parameters < 0 ? part : part.substring(0, parameters);
      if (segment.equals("..")) {
        if (!parts.isEmpty()) {
          parts.remove(parts.size() - 1);
        }
      } else if (!segment.isEmpty() && !segment.equals(".")) {
        parts.add(segment);
      }
    }
    return parts;
  }

  @Override
  public String toString() {
    return pattern;
  }
}
