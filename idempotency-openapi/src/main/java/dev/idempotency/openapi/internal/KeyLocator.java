package dev.idempotency.openapi.internal;

import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Where an operation takes its idempotency key: the header the audit looks for, another header
 * named like a key ({@code x-idempotency-key} when the audit looks for {@code Idempotency-Key}), or
 * a property of the request body ({@code idempotency_key}, as Square's and Plaid's APIs take it).
 */
final class KeyLocator {
  /** How deep {@code allOf}, {@code oneOf} and {@code anyOf} are followed for a body key. */
  private static final int MAX_SCHEMA_DEPTH = 8;

  /** A body property that carries the key. */
  record BodyKey(String name, boolean required, Schema<?> schema, String mediaType) {}

  private KeyLocator() {}

  /**
   * The operation's parameters, the path item's overridden by the operation's of the same name and
   * location, as OpenAPI says; by {@code in:name}, lower case.
   */
  static Map<String, Parameter> parameters(
      PathItem item, Operation operation, Components components) {
    Map<String, Parameter> byNameAndPlace = new LinkedHashMap<>();
    for (List<Parameter> list : Arrays.asList(item.getParameters(), operation.getParameters())) {
      if (list == null) {
        continue;
      }
      for (Parameter raw : list) {
        Parameter p = components.parameter(raw);
        if (p.getName() != null && p.getIn() != null) {
          byNameAndPlace.put(
              p.getIn().toLowerCase(Locale.ROOT) + ":" + p.getName().toLowerCase(Locale.ROOT), p);
        }
      }
    }
    return byNameAndPlace;
  }

  /** The key header {@code headerName} (matched ignoring case), or null. */
  static @Nullable Parameter header(
      PathItem item, Operation operation, Components components, String headerName) {
    return parameters(item, operation, components)
        .get("header:" + headerName.toLowerCase(Locale.ROOT));
  }

  /**
   * The headers the operation declares that are named like an idempotency key ({@code idempoten...}
   * in the name) but are not {@code headerName}: the header to pass as {@code --header} when the
   * default finds none.
   */
  static List<String> otherKeyHeaders(
      PathItem item, Operation operation, Components components, String headerName) {
    List<String> names = new ArrayList<>();
    for (Parameter p : parameters(item, operation, components).values()) {
      if ("header".equalsIgnoreCase(p.getIn())
          && !p.getName().equalsIgnoreCase(headerName)
          && p.getName().toLowerCase(Locale.ROOT).contains("idempoten")) {
        names.add(p.getName());
      }
    }
    return names;
  }

  /**
   * The body property that carries the key, or null: a property of the JSON or form body whose
   * name, without its separators, holds {@code idempoten} and ends in {@code key}, {@code token} or
   * {@code id} ({@code idempotency_key}, {@code idempotencyKey}, {@code request_idempotence_key}),
   * and that is a string or untyped. A flag such as {@code is_idempotent} is not a key.
   */
  static @Nullable BodyKey bodyKey(Operation operation, Components components) {
    RequestBody raw = operation.getRequestBody();
    if (raw == null) {
      return null;
    }
    RequestBody body = components.requestBody(raw);
    if (body.getContent() == null) {
      return null;
    }
    for (Map.Entry<String, MediaType> media : body.getContent().entrySet()) {
      String type = media.getKey().toLowerCase(Locale.ROOT);
      boolean structured =
          type.contains("json") || type.contains("form-urlencoded") || type.contains("form-data");
      if (!structured || media.getValue().getSchema() == null) {
        continue;
      }
      BodyKey key = find(media.getValue().getSchema(), components, media.getKey(), true, 0);
      if (key != null) {
        return key;
      }
    }
    return null;
  }

  /** Whether a property name is a key's, by the rule of {@link #bodyKey}. */
  static boolean isKeyName(String name) {
    String n = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    return n.contains("idempoten")
        && (n.endsWith("key") || n.endsWith("token") || n.endsWith("id"));
  }

  @SuppressWarnings("rawtypes") // swagger-models' properties and compositions are raw Schemas
  private static @Nullable BodyKey find(
      Schema<?> raw, Components components, String mediaType, boolean mayRequire, int depth) {
    if (depth > MAX_SCHEMA_DEPTH) {
      return null;
    }
    Schema<?> schema = components.schema(raw);
    Map<String, Schema> properties = schema.getProperties();
    if (properties != null) {
      List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
      for (Map.Entry<String, Schema> p : properties.entrySet()) {
        Schema<?> property = components.schema(p.getValue());
        String type = typeOf(property);
        if (isKeyName(p.getKey()) && (type == null || type.equals("string"))) {
          return new BodyKey(
              p.getKey(), mayRequire && required.contains(p.getKey()), property, mediaType);
        }
      }
    }
    // allOf: every part applies, so a part's required key is required; oneOf and anyOf: a key in
    // one alternative may be absent from the request sent
    for (List<Schema> parts :
        Arrays.asList(schema.getAllOf(), schema.getOneOf(), schema.getAnyOf())) {
      if (parts == null) {
        continue;
      }
      boolean all = parts == schema.getAllOf();
      for (Schema<?> part : parts) {
        BodyKey key = find(part, components, mediaType, mayRequire && all, depth + 1);
        if (key != null) {
          return key;
        }
      }
    }
    return null;
  }

  /**
   * The operation's documented {@code 409} and {@code 422} responses, status to description (empty
   * text when it has none).
   */
  static Map<String, String> conflictAnswers(Operation operation, Components components) {
    Map<String, String> answers = new LinkedHashMap<>();
    if (operation.getResponses() == null) {
      return answers;
    }
    for (String status : List.of("409", "422")) {
      ApiResponse raw = operation.getResponses().get(status);
      if (raw != null) {
        String description = components.response(raw).getDescription();
        answers.put(status, description == null ? "" : description.strip());
      }
    }
    return answers;
  }

  /**
   * A header that a {@code 2xx} response of the operation declares to mark a replay (its name holds
   * {@code replay}: {@code Idempotent-Replayed}, {@code X-Idempotency-Replayed}), or null.
   */
  static @Nullable String replayHeader(Operation operation, Components components) {
    if (operation.getResponses() == null) {
      return null;
    }
    for (Map.Entry<String, ApiResponse> r : operation.getResponses().entrySet()) {
      Map<String, Header> headers = components.response(r.getValue()).getHeaders();
      if (!r.getKey().startsWith("2") || headers == null) {
        continue;
      }
      for (String name : headers.keySet()) {
        if (name.toLowerCase(Locale.ROOT).contains("replay")) {
          return name;
        }
      }
    }
    return null;
  }

  private static @Nullable String typeOf(Schema<?> schema) {
    if (schema.getType() != null) {
      return schema.getType();
    }
    Set<String> types = schema.getTypes();
    if (types != null && types.size() == 1) {
      return types.iterator().next();
    }
    return types == null || types.contains("string") ? null : "other";
  }
}
