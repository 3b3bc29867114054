package dev.idempotency.openapi.internal;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Follows the local {@code $ref}s the parser leaves in place ({@code #/components/parameters/…} and
 * the like; references into other files it has already copied into the components). A chain of
 * references is followed a bounded number of steps, so a cycle ends.
 */
final class Components {
  private static final int MAX_HOPS = 16;

  private final OpenAPI api;

  Components(OpenAPI api) {
    this.api = api;
  }

  Parameter parameter(Parameter p) {
    return follow(
        p, Parameter::get$ref, "#/components/parameters/", c -> c.getParameters(), Parameter.class);
  }

  ApiResponse response(ApiResponse r) {
    return follow(
        r,
        ApiResponse::get$ref,
        "#/components/responses/",
        c -> c.getResponses(),
        ApiResponse.class);
  }

  RequestBody requestBody(RequestBody b) {
    return follow(
        b,
        RequestBody::get$ref,
        "#/components/requestBodies/",
        c -> c.getRequestBodies(),
        RequestBody.class);
  }

  Header header(Header h) {
    return follow(h, Header::get$ref, "#/components/headers/", c -> c.getHeaders(), Header.class);
  }

  @SuppressWarnings("rawtypes") // swagger-models' components map holds raw Schemas
  Schema<?> schema(Schema<?> s) {
    Schema<?> current = s;
    for (int hop = 0; hop < MAX_HOPS && current.get$ref() != null; hop++) {
      Map<String, Schema> all =
          api.getComponents() == null ? null : api.getComponents().getSchemas();
      Schema<?> next = lookUp(all, current.get$ref(), "#/components/schemas/");
      if (next == null) {
        return current;
      }
      current = next;
    }
    return current;
  }

  private <T> T follow(
      T start,
      Function<T, @Nullable String> ref,
      String prefix,
      Function<io.swagger.v3.oas.models.Components, @Nullable Map<String, T>> section,
      Class<T> type) {
    T current = start;
    for (int hop = 0; hop < MAX_HOPS; hop++) {
      String target = ref.apply(current);
      if (target == null || api.getComponents() == null) {
        return current;
      }
      T next = type.cast(lookUp(section.apply(api.getComponents()), target, prefix));
      if (next == null) {
        return current;
      }
      current = next;
    }
    return current;
  }

  private static <V> @Nullable V lookUp(
      @Nullable Map<String, V> section, String ref, String prefix) {
    if (section == null) {
      return null;
    }
    String name = ref.startsWith(prefix) ? ref.substring(prefix.length()) : ref;
    // JSON Pointer escapes (RFC 6901) in a component's name
    return section.get(name.replace("~1", "/").replace("~0", "~"));
  }
}
