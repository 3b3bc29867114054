package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Moves every value that a {@code $ref} finds inside the document's own {@code paths} ({@code
 * #/paths/~1v2~1keys/get/parameters/0}) into {@code components}, and points the references there.
 * Such references are legal OpenAPI (a Reference Object holds any JSON Reference) and bundlers
 * write them to share a parameter between paths, but swagger-parser reads a parameter given that
 * way as one without a name: two on one operation are reported as "duplicate parameter values", and
 * the audit would see neither. After the move they are ordinary component references, which the
 * parser resolves. Nothing is copied, so a cycle stays a cycle of references and a value used by a
 * hundred paths stays one value.
 *
 * <p>A target is moved by what it is: a parameter, a response, a request body, a header, an
 * example, a link, or (anything under a {@code schema}) a schema. A reference whose target does not
 * exist, or is none of these, is left for the parser to report.
 */
final class PathRefHoister {
  private static final String PREFIX = "#/paths/";

  /** A target: its parent, where in it, the section of components it goes to. */
  private record Target(JsonNode parent, String field, int index, String section) {}

  private PathRefHoister() {}

  /** Whether the text may hold such a reference: the cheap test before a tree is built. */
  static boolean mayHavePathRefs(String text) {
    return text.contains(PREFIX);
  }

  /**
   * Moves the targets of {@code root}'s references into paths, in place.
   *
   * @return how many targets were moved
   */
  static int hoist(JsonNode root) {
    if (!(root instanceof ObjectNode document)) {
      return 0;
    }
    Map<String, List<ObjectNode>> refs = new LinkedHashMap<>();
    collect(root, refs);
    // find every target before anything moves: a target may lie inside another
    Map<String, Target> targets = new LinkedHashMap<>();
    for (String ref : refs.keySet()) {
      Target t = target(root, ref);
      if (t != null) {
        targets.put(ref, t);
      }
    }
    ObjectNode components =
        document.get("components") instanceof ObjectNode c ? c : document.putObject("components");
    Map<String, String> newRefs = new LinkedHashMap<>();
    int n = 0;
    for (Map.Entry<String, Target> e : targets.entrySet()) {
      Target t = e.getValue();
      ObjectNode section =
          components.get(t.section()) instanceof ObjectNode s
              ? s
              : components.putObject(t.section());
      String name;
      do {
        name = "fromPaths" + ++n;
      } while (section.has(name));
      JsonNode value = valueOf(t);
      if (value == null) {
        continue;
      }
      section.set(name, value);
      String ref = "#/components/" + t.section() + "/" + name;
      newRefs.put(e.getKey(), ref);
      ObjectNode pointer = new ObjectMapper().createObjectNode().put("$ref", ref);
      if (t.parent() instanceof ArrayNode array) {
        array.set(t.index(), pointer);
      } else {
        ((ObjectNode) t.parent()).set(t.field(), pointer);
      }
    }
    // the references themselves, where they stand
    for (Map.Entry<String, String> e : newRefs.entrySet()) {
      for (ObjectNode reference : refs.getOrDefault(e.getKey(), List.of())) {
        reference.put("$ref", e.getValue());
      }
    }
    return newRefs.size();
  }

  /** The tree as JSON text, for the parser (which reads JSON whatever the file's extension). */
  static String text(JsonNode root) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      new ObjectMapper().writeValue(out, root);
    } catch (IOException e) {
      throw new IllegalStateException("a tree read from text always writes back", e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static @Nullable JsonNode valueOf(Target t) {
    return t.parent() instanceof ArrayNode array ? array.get(t.index()) : t.parent().get(t.field());
  }

  /** Every object whose {@code $ref} points into paths, by the reference. */
  private static void collect(JsonNode node, Map<String, List<ObjectNode>> refs) {
    if (node instanceof ObjectNode object
        && object.get("$ref") instanceof TextNode text
        && text.asText().startsWith(PREFIX)) {
      refs.computeIfAbsent(text.asText(), k -> new ArrayList<>()).add(object);
    }
    for (JsonNode child : node) {
      collect(child, refs);
    }
  }

  private static @Nullable Target target(JsonNode root, String ref) {
    List<String> tokens = tokens(ref);
    if (tokens == null || tokens.size() < 3) {
      return null;
    }
    String section = section(tokens);
    if (section == null) {
      return null;
    }
    StringBuilder parentPointer = new StringBuilder();
    for (String token : tokens.subList(0, tokens.size() - 1)) {
      parentPointer.append('/').append(token.replace("~", "~0").replace("/", "~1"));
    }
    JsonNode parent = root.at(JsonPointer.compile(parentPointer.toString()));
    String last = tokens.get(tokens.size() - 1);
    if (parent instanceof ArrayNode array) {
      int index;
      try {
        index = Integer.parseInt(last);
      } catch (NumberFormatException e) {
        return null;
      }
      return index >= 0 && index < array.size() ? new Target(parent, last, index, section) : null;
    }
    if (parent instanceof ObjectNode object && object.has(last)) {
      return new Target(parent, last, -1, section);
    }
    return null;
  }

  /**
   * The components section a target belongs to, from where it stands: {@code paths/P/parameters/N}
   * or {@code paths/P/M/parameters/N} a parameter, {@code paths/P/M/responses/C} a response, and so
   * on; anything under a {@code schema} a schema.
   */
  private static @Nullable String section(List<String> t) {
    int n = t.size();
    String last2 = t.get(n - 2);
    if (t.subList(0, n - 1).contains("schema") || t.get(n - 1).equals("schema")) {
      return "schemas";
    }
    if (last2.equals("parameters") && (n == 4 || n == 5)) {
      return "parameters";
    }
    if (last2.equals("responses") && n == 5) {
      return "responses";
    }
    if (t.get(n - 1).equals("requestBody") && n == 4) {
      return "requestBodies";
    }
    return switch (last2) {
      case "headers" -> "headers";
      case "examples" -> "examples";
      case "links" -> "links";
      default -> null;
    };
  }

  /** The reference's tokens after {@code #}, URI escapes ({@code %7B}) and {@code ~1} decoded. */
  private static @Nullable List<String> tokens(String ref) {
    String fragment = decodePercent(ref.substring(1));
    if (!fragment.startsWith("/")) {
      return null;
    }
    List<String> tokens = new ArrayList<>();
    for (String raw : fragment.substring(1).split("/", -1)) {
      tokens.add(raw.replace("~1", "/").replace("~0", "~"));
    }
    return tokens;
  }

  private static String decodePercent(String s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%'
          && i + 2 < s.length()
          && Character.digit(s.charAt(i + 1), 16) >= 0
          && Character.digit(s.charAt(i + 2), 16) >= 0) {
        bytes.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
