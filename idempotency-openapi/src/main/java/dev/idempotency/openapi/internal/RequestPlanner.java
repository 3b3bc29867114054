package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.examples.Example;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The request {@code verify} and {@code gates} send for an operation: the user's, from the request
 * file, or one built from the document's examples (path and required query parameters, a JSON
 * body). An operation whose request cannot be built is skipped with the reason, never sent
 * half-made. The state probe is the file's, or a {@code GET} of the same path when the document
 * declares one that needs no more parameters.
 */
public final class RequestPlanner {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RequestPlanner() {}

  /**
   * A request to send; {@code body} null for none.
   *
   * @param probe a {@code GET} path whose answer shows the state the request changes, or null
   * @param probeFromDocument whether the probe is the document's {@code GET} of the same path
   *     rather than the user's
   * @param probeCount a JSON Pointer to the number (or the array whose size) that counts the side
   *     effects in the probe's answer; null for the whole answer
   * @param otherBody another body for the same operation (gates: the same key with another
   *     request), or null to derive one
   * @param slowBody the body that keeps the server busy (gates: the answer while in flight), or
   *     null
   * @param slowHeaders headers that keep the server busy, sent with {@code slowBody} or the body
   */
  public record Planned(
      String path,
      @Nullable String body,
      @Nullable String contentType,
      Map<String, String> headers,
      @Nullable String probe,
      boolean probeFromDocument,
      @Nullable String probeCount,
      @Nullable String otherBody,
      @Nullable String slowBody,
      Map<String, String> slowHeaders) {
    /** Copies the headers. */
    public Planned {
      headers = Map.copyOf(headers);
      slowHeaders = Map.copyOf(slowHeaders);
    }

    static Planned of(
        String path, @Nullable String body, @Nullable String contentType, @Nullable String probe) {
      return new Planned(
          path, body, contentType, Map.of(), probe, probe != null, null, null, null, Map.of());
    }

    /** The request itself, for {@code method}. */
    Outgoing request(String method) {
      return new Outgoing(method, path, headers, body, contentType);
    }

    /** The probe's {@code GET}, with this request's headers (the probe needs the same access). */
    @Nullable Outgoing probeRequest() {
      return probe == null ? null : new Outgoing("GET", probe, headers, null, null);
    }
  }

  /** A planned request, or the reason there is none. */
  public record Plan(@Nullable Planned request, String skipReason) {
    static Plan skip(String reason) {
      return new Plan(null, reason);
    }
  }

  /** The request built from the document's examples. */
  static Plan fromExamples(String template, PathItem item, Operation op, Components components) {
    String path = template;
    StringBuilder query = new StringBuilder();
    for (List<Parameter> list : Arrays.asList(item.getParameters(), op.getParameters())) {
      if (list == null) {
        continue;
      }
      for (Parameter raw : list) {
        Parameter p = components.parameter(raw);
        boolean inPath = "path".equals(p.getIn());
        boolean requiredQuery = "query".equals(p.getIn()) && Boolean.TRUE.equals(p.getRequired());
        if (!inPath && !requiredQuery) {
          continue;
        }
        Object example = example(p, components);
        if (example == null) {
          return Plan.skip(
              "no example for the "
                  + p.getIn()
                  + " parameter "
                  + p.getName()
                  + "; give the request in a --requests file");
        }
        String value =
            URLEncoder.encode(String.valueOf(example), StandardCharsets.UTF_8).replace("+", "%20");
        if (inPath) {
          path = path.replace("{" + p.getName() + "}", value);
        } else {
          query
              .append(query.length() == 0 ? '?' : '&')
              .append(URLEncoder.encode(p.getName(), StandardCharsets.UTF_8))
              .append('=')
              .append(value);
        }
      }
    }
    if (path.contains("{")) {
      return Plan.skip("the path " + template + " has a parameter the operation does not declare");
    }
    String probe = probe(item, path, components);
    RequestBody body =
        op.getRequestBody() == null ? null : components.requestBody(op.getRequestBody());
    if (body == null || body.getContent() == null || body.getContent().isEmpty()) {
      return new Plan(Planned.of(path + query, null, null, probe), "");
    }
    for (Map.Entry<String, MediaType> media : body.getContent().entrySet()) {
      String type = media.getKey();
      if (!(type.startsWith("application/json") || type.contains("+json"))) {
        continue;
      }
      Object example = bodyExample(media.getValue(), components);
      if (example == null) {
        continue;
      }
      try {
        return new Plan(
            Planned.of(path + query, JSON.writeValueAsString(example), type, probe), "");
      } catch (JsonProcessingException e) {
        return Plan.skip("the body example does not serialize as JSON: " + e.getOriginalMessage());
      }
    }
    if (Boolean.TRUE.equals(body.getRequired())) {
      return Plan.skip("no JSON example of the request body; give it in a --requests file");
    }
    return new Plan(Planned.of(path + query, null, null, probe), "");
  }

  /**
   * The document's {@code GET} of the same path as the state probe, when it needs no parameter but
   * the path's: the state a PUT or DELETE leaves, or the collection a POST adds to.
   */
  private static @Nullable String probe(PathItem item, String path, Components components) {
    Operation get = item.getGet();
    if (get == null) {
      return null;
    }
    for (List<Parameter> list : Arrays.asList(item.getParameters(), get.getParameters())) {
      if (list == null) {
        continue;
      }
      for (Parameter raw : list) {
        Parameter p = components.parameter(raw);
        if (!"path".equals(p.getIn()) && Boolean.TRUE.equals(p.getRequired())) {
          return null;
        }
      }
    }
    return path;
  }

  private static @Nullable Object example(Parameter p, Components components) {
    return firstExample(p.getExample(), p.getExamples(), p.getSchema(), components);
  }

  private static @Nullable Object bodyExample(MediaType media, Components components) {
    return firstExample(media.getExample(), media.getExamples(), media.getSchema(), components);
  }

  /** The example, else the first of the named examples, else the schema's example or default. */
  private static @Nullable Object firstExample(
      @Nullable Object example,
      @Nullable Map<String, Example> examples,
      @Nullable Schema<?> schema,
      Components components) {
    if (example != null) {
      return example;
    }
    if (examples != null) {
      for (Example e : examples.values()) {
        if (e.getValue() != null) {
          return e.getValue();
        }
      }
    }
    return schema == null ? null : schemaExample(components.schema(schema));
  }

  private static @Nullable Object schemaExample(Schema<?> schema) {
    if (schema.getExample() != null) {
      return schema.getExample();
    }
    if (schema.getDefault() != null) {
      return schema.getDefault();
    }
    List<?> values = schema.getEnum();
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /**
   * The requests of a {@code --requests} file, by operation ({@code "PUT /orders/{id}"} or an
   * operationId): {@code {"headers": {...}, "requests": [{"operation", "path", "body" or
   * "bodyText", "contentType", "headers", "probe", "probeCount", "otherBody", "slowBody",
   * "slowHeaders"}]}}.
   *
   * @throws IllegalArgumentException naming the entry that is malformed
   */
  public static Map<String, Planned> fromFile(JsonNode root) {
    Map<String, String> common = headers(root.get("headers"), "headers");
    JsonNode requests = root.get("requests");
    if (requests == null || !requests.isArray()) {
      throw new IllegalArgumentException("the requests file needs a \"requests\" array");
    }
    Map<String, Planned> plans = new LinkedHashMap<>();
    int k = 0;
    for (JsonNode r : requests) {
      String where = "requests[" + k++ + "]";
      String operation = text(r, "operation", where);
      String path = text(r, "path", where);
      if (!path.startsWith("/") || path.startsWith("//")) {
        throw new IllegalArgumentException(
            where + ".path must start with a single '/', but was \"" + path + "\"");
      }
      String body = null;
      String contentType = r.hasNonNull("contentType") ? r.get("contentType").asText() : null;
      if (r.has("body")) {
        body = json(r.get("body"), where + ".body");
        contentType = contentType == null ? "application/json" : contentType;
      } else if (r.has("bodyText")) {
        body = r.get("bodyText").asText();
        contentType = contentType == null ? "text/plain; charset=UTF-8" : contentType;
      }
      Map<String, String> headers = new LinkedHashMap<>(common);
      headers.putAll(headers(r.get("headers"), where + ".headers"));
      String probe = r.hasNonNull("probe") ? r.get("probe").asText() : null;
      if (probe != null && (!probe.startsWith("/") || probe.startsWith("//"))) {
        throw new IllegalArgumentException(
            where + ".probe must be a path starting with a single '/', but was \"" + probe + "\"");
      }
      String probeCount = r.hasNonNull("probeCount") ? r.get("probeCount").asText() : null;
      if (probeCount != null && !probeCount.isEmpty() && !probeCount.startsWith("/")) {
        throw new IllegalArgumentException(
            where
                + ".probeCount is a JSON Pointer (\"/total\", \"/items\"), not \""
                + probeCount
                + "\"");
      }
      String otherBody = r.has("otherBody") ? json(r.get("otherBody"), where + ".otherBody") : null;
      String slowBody = r.has("slowBody") ? json(r.get("slowBody"), where + ".slowBody") : null;
      Map<String, String> slowHeaders = headers(r.get("slowHeaders"), where + ".slowHeaders");
      plans.put(
          operation,
          new Planned(
              path,
              body,
              contentType,
              headers,
              probe,
              false,
              probeCount,
              otherBody,
              slowBody,
              slowHeaders));
    }
    return plans;
  }

  private static String json(JsonNode node, String where) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + ": " + e.getOriginalMessage(), e);
    }
  }

  private static String text(JsonNode r, String name, String where) {
    JsonNode n = r.get(name);
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw new IllegalArgumentException(where + " needs \"" + name + "\", a string");
    }
    return n.asText();
  }

  private static Map<String, String> headers(@Nullable JsonNode node, String where) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (node == null) {
      return headers;
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " must be an object of header names to values");
    }
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      headers.put(name, node.get(name).asText());
    }
    return headers;
  }
}
