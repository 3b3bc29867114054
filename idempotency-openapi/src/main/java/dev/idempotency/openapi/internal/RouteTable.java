package dev.idempotency.openapi.internal;

import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.KeyRequirement;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds the filter's endpoint rules from what documents declare: an operation whose key header is
 * required becomes a {@link KeyRequirement#REQUIRED} rule, an optional one {@link
 * KeyRequirement#OPTIONAL}. A path template becomes a pattern whose templated segments are {@code
 * *}: {@code /orders/{id}} matches {@code /orders/42}.
 *
 * <p>Order: the filter takes the first rule that matches, and OpenAPI matches a concrete path
 * before a templated one, so the rules are sorted by segment, literal before {@code *}. An unkeyed
 * operation whose path a templated keyed one would otherwise catch ({@code POST /files/upload}
 * beside a keyed {@code POST /files/{name}}) gets an {@link KeyRequirement#OPTIONAL} rule of its
 * own ahead of it: without a key it passes through as the document says. A segment templated in
 * part ({@code {name}.json}) matches any segment; when two such paths become one pattern and
 * disagree, the stronger requirement wins (guarding a request that did not need it costs a key; the
 * other way a retried POST runs twice), and a note says so.
 */
public final class RouteTable {
  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  /** Rules, in the order to add them, and notes on what the patterns could not express. */
  public record Result(List<EndpointRule> rules, List<String> notes) {}

  /** How an operation takes the key; NONE for one that does not. */
  private enum Need {
    NONE,
    OPTIONAL,
    REQUIRED
  }

  private RouteTable() {}

  /**
   * The route table of {@code documents}.
   *
   * @param pathPrefix prepended to every path ("" for none): the part of the request path the
   *     filter sees that the document's paths leave out
   */
  public static Result build(
      List<DocumentReader.Document> documents, String headerName, String pathPrefix) {
    // pattern -> method -> need; TreeMap with the specificity order
    Map<String, Map<String, Need>> byPattern = new TreeMap<>(RouteTable::bySpecificity);
    List<String> notes = new ArrayList<>();
    for (DocumentReader.Document d : documents) {
      OpenAPI api = d.api();
      if (api.getPaths() == null) {
        continue;
      }
      Components components = new Components(api);
      for (Map.Entry<String, PathItem> path : api.getPaths().entrySet()) {
        String pattern = pattern(pathPrefix + path.getKey());
        for (Map.Entry<PathItem.HttpMethod, Operation> op :
            path.getValue().readOperationsMap().entrySet()) {
          String method = op.getKey().name();
          if (SAFE.contains(method)) {
            continue;
          }
          Parameter key = KeyLocator.header(path.getValue(), op.getValue(), components, headerName);
          Need need =
              key == null
                  ? Need.NONE
                  : Boolean.TRUE.equals(key.getRequired()) ? Need.REQUIRED : Need.OPTIONAL;
          Map<String, Need> methods =
              byPattern.computeIfAbsent(pattern, p -> new LinkedHashMap<>());
          Need before = methods.get(method);
          if (before != null && before != need) {
            notes.add(
                method
                    + " "
                    + path.getKey()
                    + " shares the pattern "
                    + pattern
                    + " with another path that "
                    + describe(before)
                    + "; this one "
                    + describe(need)
                    + ": the rule keeps the stronger");
          }
          methods.merge(method, need, (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
      }
    }
    List<EndpointRule> rules = new ArrayList<>();
    List<Map.Entry<String, Map<String, Need>>> patterns = new ArrayList<>(byPattern.entrySet());
    for (int i = 0; i < patterns.size(); i++) {
      String pattern = patterns.get(i).getKey();
      Map<String, Need> methods = patterns.get(i).getValue();
      List<String> required = new ArrayList<>();
      List<String> optional = new ArrayList<>();
      for (Map.Entry<String, Need> m : methods.entrySet()) {
        if (m.getValue() == Need.REQUIRED) {
          required.add(m.getKey());
        } else if (m.getValue() == Need.OPTIONAL
            || shadowedByKeyedRule(pattern, m.getKey(), patterns.subList(i + 1, patterns.size()))) {
          optional.add(m.getKey());
        }
      }
      if (!required.isEmpty()) {
        rules.add(
            EndpointRule.of(KeyRequirement.REQUIRED, pattern, required.toArray(String[]::new)));
      }
      if (!optional.isEmpty()) {
        rules.add(
            EndpointRule.of(KeyRequirement.OPTIONAL, pattern, optional.toArray(String[]::new)));
      }
    }
    return new Result(List.copyOf(rules), List.copyOf(notes));
  }

  /**
   * Whether a later, less specific pattern that overlaps this one needs a key for {@code method}.
   */
  private static boolean shadowedByKeyedRule(
      String pattern, String method, List<Map.Entry<String, Map<String, Need>>> later) {
    for (Map.Entry<String, Map<String, Need>> other : later) {
      Need need = other.getValue().get(method);
      if (need != null && need != Need.NONE && overlap(pattern, other.getKey())) {
        return true;
      }
    }
    return false;
  }

  private static boolean overlap(String a, String b) {
    String[] x = segments(a);
    String[] y = segments(b);
    if (x.length != y.length) {
      return false;
    }
    for (int k = 0; k < x.length; k++) {
      if (!x[k].equals("*") && !y[k].equals("*") && !x[k].equalsIgnoreCase(y[k])) {
        return false;
      }
    }
    return true;
  }

  /** The rule pattern of a path template: a segment with a {@code {…}} in it becomes {@code *}. */
  static String pattern(String template) {
    StringBuilder p = new StringBuilder();
    for (String segment : segments(template)) {
      p.append('/').append(segment.contains("{") ? "*" : segment);
    }
    return p.length() == 0 ? "/" : p.toString();
  }

  private static String[] segments(String path) {
    return path.chars().allMatch(c -> c == '/')
        ? new String[0]
        : java.util.Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
  }

  /** Fewer segments first; then, segment by segment, a literal before {@code *}; then by text. */
  private static int bySpecificity(String a, String b) {
    String[] x = segments(a);
    String[] y = segments(b);
    if (x.length != y.length) {
      return Integer.compare(x.length, y.length);
    }
    for (int k = 0; k < x.length; k++) {
      boolean wildX = x[k].equals("*");
      boolean wildY = y[k].equals("*");
      if (wildX != wildY) {
        return wildX ? 1 : -1;
      }
    }
    return Comparator.<String>naturalOrder().compare(a, b);
  }

  private static String describe(Need need) {
    return switch (need) {
      case NONE -> "takes no key";
      case OPTIONAL -> "takes the key optionally";
      case REQUIRED -> "requires the key";
    };
  }
}
