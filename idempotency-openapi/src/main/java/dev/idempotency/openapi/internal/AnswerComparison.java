package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Compares two answers to one request: the status, then the body, member by member when both are
 * JSON (so that a report names the field that changed), else byte for byte. Headers are not
 * compared: a replay adds {@code Idempotent-Replayed}, and dates and trace ids differ on every
 * answer. A DELETE repeated is allowed the usual answers of a thing already gone.
 */
final class AnswerComparison {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Differences reported per comparison at most, so a changed large array stays readable. */
  private static final int MAX_DIFFERENCES = 20;

  private AnswerComparison() {}

  /**
   * The differences between {@code first} and {@code second}, each {@code where: first → second};
   * none when they are equal but for the members named in {@code ignored}.
   *
   * @param label what is compared ("answer", "probe"), the start of each difference
   */
  static List<String> differences(String label, Answer first, Answer second, Set<String> ignored) {
    List<String> out = new ArrayList<>();
    if (first.status() != second.status()) {
      out.add(label + " status: " + first.status() + " → " + second.status());
    }
    JsonNode a = parse(first.body());
    JsonNode b = parse(second.body());
    if (a != null && b != null) {
      compare(label + " $", a, b, ignored, out);
    } else if (!Arrays.equals(first.body(), second.body())) {
      out.add(
          label
              + " body: "
              + first.body().length
              + " bytes → "
              + second.body().length
              + " bytes, not equal");
    }
    return out.size() > MAX_DIFFERENCES ? out.subList(0, MAX_DIFFERENCES) : out;
  }

  /**
   * Whether a repeated DELETE's answers are the usual ones of an idempotent delete: the first a
   * success ({@code 200}, {@code 202}, {@code 204}), the second a success too or {@code 404} or
   * {@code 410} (the thing is gone). The state probe, not the answer, then says whether the second
   * changed anything.
   */
  static boolean deleteEquivalent(Answer first, Answer second) {
    int b = second.status();
    return first.success() && (second.success() || b == 404 || b == 410);
  }

  private static @Nullable JsonNode parse(byte[] body) {
    if (body.length == 0) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  private static void compare(
      String where, JsonNode a, JsonNode b, Set<String> ignored, List<String> out) {
    if (out.size() > MAX_DIFFERENCES) {
      return;
    }
    if (a.isObject() && b.isObject()) {
      Set<String> names = new LinkedHashSet<>();
      a.fieldNames().forEachRemaining(names::add);
      b.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        if (ignored.contains(name)) {
          continue;
        }
        JsonNode x = a.get(name);
        JsonNode y = b.get(name);
        String at = where + "." + name;
        if (x == null || y == null) {
          out.add(at + ": " + text(x) + " → " + text(y));
        } else {
          compare(at, x, y, ignored, out);
        }
      }
    } else if (a.isArray() && b.isArray()) {
      Iterator<JsonNode> x = a.elements();
      Iterator<JsonNode> y = b.elements();
      int k = 0;
      while (x.hasNext() && y.hasNext()) {
        compare(where + "[" + k++ + "]", x.next(), y.next(), ignored, out);
      }
      if (a.size() != b.size()) {
        out.add(where + ": " + a.size() + " elements → " + b.size() + " elements");
      }
    } else if (!a.equals(b)) {
      out.add(where + ": " + text(a) + " → " + text(b));
    }
  }

  private static String text(@Nullable JsonNode n) {
    if (n == null) {
      return "(absent)";
    }
    String s = n.toString();
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }
}
