package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the caller knows about someone else's API that its document does not say, written beside it
 * rather than in it (an integrator cannot edit a provider's document):
 *
 * <pre>
 * operations:
 *   accountsGet:            {verdict: safe,   reason: reads the accounts}
 *   "POST /transfer/create": {verdict: keyed,  reason: the docs' Idempotency page, body: idempotency_key}
 *   "POST /sandbox/fire":    {verdict: unsafe, reason: fires a webhook on every call}
 * </pre>
 *
 * An entry is named by {@code METHOD /path} (the path as the document writes it) or by operationId;
 * {@code safe} is read-only, {@code keyed} takes a key ({@code header: NAME}, {@code body:
 * PROPERTY}, or the audit's header when neither), {@code unsafe} is unsafe to retry. Every entry
 * needs its reason. YAML or JSON. Immutable.
 */
public final class Overlay {
  /** What an entry says. */
  public enum Kind {
    /** Safe to retry: it reads, or sets the same state again; a retry changes nothing more. */
    SAFE,
    /** Takes an idempotency key the document does not declare. */
    KEYED,
    /** Unsafe to retry, with the reason. */
    UNSAFE
  }

  /** One entry. */
  public record Entry(
      String selector,
      Kind kind,
      String reason,
      @Nullable String header,
      @Nullable String bodyProperty) {}

  private final String file;
  private final Map<String, Entry> entries;

  private Overlay(String file, Map<String, Entry> entries) {
    this.file = file;
    this.entries = entries;
  }

  /**
   * Reads an overlay file.
   *
   * @throws IllegalArgumentException naming the file and the entry when it cannot be read or an
   *     entry is malformed
   */
  public static Overlay read(Path path) {
    String file = path.toString();
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException("overlay " + file + ": no such file");
    }
    ObjectMapper mapper =
        file.toLowerCase(Locale.ROOT).endsWith(".json") ? new ObjectMapper() : new YAMLMapper();
    JsonNode root;
    try {
      root = mapper.readTree(path.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "overlay " + file + " is not YAML or JSON: " + e.getMessage(), e);
    }
    JsonNode operations = root == null ? null : root.get("operations");
    if (operations == null || !operations.isObject() || operations.isEmpty()) {
      throw new IllegalArgumentException(
          "overlay "
              + file
              + " needs \"operations\": a map of operationId or \"METHOD /path\" to {verdict:"
              + " safe|keyed|unsafe, reason: ...}");
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    List<String> names = new ArrayList<>();
    operations.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      Entry e = entry(file, name, operations.get(name));
      if (entries.put(e.selector(), e) != null) {
        throw new IllegalArgumentException(
            "overlay " + file + ": operations." + name + " is given twice");
      }
    }
    return new Overlay(file, entries);
  }

  private static Entry entry(String file, String name, JsonNode node) {
    String where = "overlay " + file + ": operations." + name;
    String selector = selector(name);
    if (selector == null) {
      throw new IllegalArgumentException(
          where + " names no operation: use its operationId or \"METHOD /path\"");
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " must be {verdict: ..., reason: ...}");
    }
    String verdict = text(node, "verdict");
    Kind kind;
    try {
      kind = Kind.valueOf(verdict == null ? "" : verdict.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where + ".verdict must be safe, keyed or unsafe, not \"" + verdict + "\"", e);
    }
    String reason = text(node, "reason");
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException(
          where + " needs a reason: integrators and reviewers read why the verdict was changed");
    }
    String header = text(node, "header");
    String body = text(node, "body");
    if (kind != Kind.KEYED && (header != null || body != null)) {
      throw new IllegalArgumentException(where + ": header and body go with verdict keyed only");
    }
    if (header != null && body != null) {
      throw new IllegalArgumentException(
          where + ": the key is in a header or in the body, not both");
    }
    if (header != null && !header.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException(where + ".header is not an HTTP field name: " + header);
    }
    return new Entry(selector, kind, reason.strip(), header, body);
  }

  private static @Nullable String text(JsonNode node, String name) {
    JsonNode n = node.get(name);
    return n == null || n.isNull() ? null : n.asText();
  }

  /** {@code "POST /a/{id}"} with the method in upper case, or the operationId; null if neither. */
  private static @Nullable String selector(String name) {
    String s = name.strip();
    int space = s.indexOf(' ');
    if (space < 0) {
      return s.isEmpty() ? null : s;
    }
    String method = s.substring(0, space).toUpperCase(Locale.ROOT);
    String path = s.substring(space + 1).strip();
    if (!method.chars().allMatch(c -> c >= 'A' && c <= 'Z') || !path.startsWith("/")) {
      return null;
    }
    return method + " " + path;
  }

  /** The entry for an operation: by {@code METHOD /path} first, then by operationId. */
  public @Nullable Entry lookup(String method, String path, @Nullable String operationId) {
    Entry e = entries.get(method + " " + path);
    if (e == null && operationId != null) {
      e = entries.get(operationId);
    }
    return e;
  }

  /** Every entry's selector, in the file's order. */
  public List<String> selectors() {
    return List.copyOf(entries.keySet());
  }

  /** The file, as given. */
  public String file() {
    return file;
  }
}
