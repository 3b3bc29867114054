package dev.idempotency.openapi.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Recognises a POST that has the shape of a read: its operationId (or, without one or when the
 * operationId only spells out the method and path, its last literal path segment) holds a read verb
 * ({@code accountsGet}, {@code SearchOrders}, {@code BatchRetrieveOrders}, {@code markdown/render},
 * {@code /institutions/get_by_id}) and no write verb ({@code getOrCreate} is not a read). The
 * verdict this gives is a guess the user confirms, so the verbs are the unambiguous ones: {@code
 * read} is left out ({@code /conversations/{id}/read} marks a conversation read) and so is {@code
 * filter} (Plaid's {@code /asset_report/filter} makes a new report).
 */
final class ReadOnlyShapes {
  private static final Set<String> READ =
      Set.of(
          "get",
          "list",
          "search",
          "query",
          "find",
          "lookup",
          "fetch",
          "retrieve",
          "render",
          "preview",
          "count",
          "calculate",
          "estimate");

  /**
   * Verbs that make a write of an operation that also names a read ({@code getOrCreate}). Words
   * that are nouns as often ({@code transfer} in {@code transferGet}, {@code link} in {@code
   * linkTokenGet}) are not here.
   */
  private static final Set<String> WRITE =
      Set.of(
          "create",
          "update",
          "delete",
          "remove",
          "add",
          "set",
          "send",
          "pay",
          "charge",
          "cancel",
          "refund",
          "upsert",
          "insert",
          "put",
          "patch",
          "submit",
          "execute",
          "run",
          "start",
          "stop",
          "publish",
          "import",
          "upload",
          "post",
          "write",
          "save",
          "register",
          "revoke",
          "reset",
          "enable",
          "disable",
          "approve",
          "reject",
          "archive",
          "clone",
          "copy",
          "move",
          "merge",
          "sync",
          "refresh",
          "exchange",
          "invalidate",
          "migrate",
          "fire",
          "simulate",
          "mark",
          "read",
          "dismiss",
          "clear",
          "follow",
          "block",
          "mute",
          "pin",
          "generate",
          "assign",
          "trigger",
          "rotate");

  private ReadOnlyShapes() {}

  /**
   * Why the operation looks read-only ("its operationId SearchOrders reads: search"), or null when
   * it does not or its method is not POST.
   */
  static @Nullable String readShape(String method, String path, @Nullable String operationId) {
    if (!method.equals("POST")) {
      return null;
    }
    String source;
    List<String> words;
    if (operationId != null && !operationId.isBlank() && !repeatsMethodAndPath(operationId)) {
      source = "its operationId " + operationId;
      words = words(operationId);
    } else {
      String last = lastLiteralSegment(path);
      if (last == null) {
        return null;
      }
      source = "its path's last segment " + last;
      words = words(last);
    }
    String verb = null;
    for (String w : words) {
      if (WRITE.contains(w)) {
        return null;
      }
      if (verb == null && READ.contains(w)) {
        verb = w;
      }
    }
    return verb == null ? null : source + " names a read (" + verb + ")";
  }

  /**
   * An operationId that starts with the method in capitals and a separator ({@code
   * POST_mc-contacts-search}, SendGrid's) is the method and path spelled out: its {@code POST} is
   * no write verb, and its other words include path parameter names ({@code
   * POST_contactdb-lists-list_id-recipients} adds recipients to a list; {@code list_id} is not a
   * read), so the path is read instead.
   */
  private static boolean repeatsMethodAndPath(String operationId) {
    return operationId.length() > 5
        && operationId.startsWith("POST")
        && "_-.".indexOf(operationId.charAt(4)) >= 0;
  }

  private static @Nullable String lastLiteralSegment(String path) {
    String last = null;
    for (String segment : path.split("/", -1)) {
      if (!segment.isEmpty() && !segment.contains("{")) {
        last = segment;
      }
    }
    return last;
  }

  /** camelCase, snake_case, kebab-case and slashes, split into lower-case words. */
  static List<String> words(String s) {
    String spaced = s.replaceAll("([a-z0-9])([A-Z])", "$1 $2");
    List<String> words = new ArrayList<>();
    for (String w : spaced.split("[^A-Za-z0-9]+", -1)) {
      if (!w.isEmpty()) {
        words.add(w.toLowerCase(Locale.ROOT));
      }
    }
    return words;
  }
}
