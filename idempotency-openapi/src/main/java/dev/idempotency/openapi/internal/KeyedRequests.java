package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idempotency.openapi.KeyDeclaration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Puts a key where the operation takes it (a header, or a property of a JSON body) and derives the
 * requests the gates need from the planned one: another body for the same key, and keys the server
 * should refuse.
 */
final class KeyedRequests {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeyedRequests() {}

  /** A request that cannot carry its key: a body key in a body that is not a JSON object. */
  static final class KeyPlacementException extends Exception {
    private static final long serialVersionUID = 1L;

    KeyPlacementException(String message) {
      super(message);
    }
  }

  /**
   * {@code r} with {@code key} where {@code k} says; a null key leaves it out (a header removed, a
   * body property dropped).
   *
   * @throws KeyPlacementException when the key goes in a body that is not a JSON object
   */
  static Outgoing withKey(Outgoing r, KeyDeclaration k, @Nullable String key)
      throws KeyPlacementException {
    if (k.location() == KeyDeclaration.Location.HEADER) {
      if (key != null) {
        return r.withHeader(k.name(), key);
      }
      Map<String, String> h = new LinkedHashMap<>(r.headers());
      h.keySet().removeIf(n -> n.equalsIgnoreCase(k.name()));
      return new Outgoing(r.method(), r.path(), h, r.body(), r.contentType());
    }
    ObjectNode body = object(r.body(), k.name());
    if (key == null) {
      body.remove(k.name());
    } else {
      body.put(k.name(), key);
    }
    return new Outgoing(
        r.method(),
        r.path(),
        r.headers(),
        write(body),
        r.contentType() == null ? "application/json" : r.contentType());
  }

  /**
   * Another body for the same operation: the first number in it plus one, else the first string
   * with {@code -other} appended, the key's own property left alone; null when the body has neither
   * (the gate is then not run unless the requests file gives {@code otherBody}).
   */
  static @Nullable String otherBody(@Nullable String body, @Nullable String keyProperty) {
    if (body == null) {
      return null;
    }
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
    if (tree == null || !(tree.isObject() || tree.isArray())) {
      return null;
    }
    return change(tree, keyProperty, true) || change(tree, keyProperty, false) ? write(tree) : null;
  }

  /** Changes the first number (or, if {@code numbers} is false, string) found; whether it did. */
  private static boolean change(JsonNode node, @Nullable String keyProperty, boolean numbers) {
    if (node instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        if (name.equals(keyProperty)) {
          continue;
        }
        JsonNode v = object.get(name);
        if (numbers && v.isIntegralNumber()) {
          object.put(name, v.asLong() + 1);
          return true;
        }
        if (numbers && v.isNumber()) {
          object.put(name, v.asDouble() + 1);
          return true;
        }
        if (!numbers && v.isTextual()) {
          object.put(name, v.asText() + "-other");
          return true;
        }
        if (change(v, keyProperty, numbers)) {
          return true;
        }
      }
    } else if (node instanceof ArrayNode array) {
      Iterator<JsonNode> it = array.elements();
      while (it.hasNext()) {
        if (change(it.next(), keyProperty, numbers)) {
          return true;
        }
      }
    }
    return false;
  }

  private static ObjectNode object(@Nullable String body, String property)
      throws KeyPlacementException {
    if (body == null || body.isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode tree = JSON.readTree(body);
      if (tree instanceof ObjectNode object) {
        return object;
      }
    } catch (JsonProcessingException e) {
      // not JSON: said below
    }
    throw new KeyPlacementException(
        "the key goes in the body property " + property + ", but the body is not a JSON object");
  }

  private static String write(JsonNode tree) {
    try {
      return JSON.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree read from JSON always writes back", e);
    }
  }
}
