package dev.idempotency.admin;

import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.core.RecordView;
import dev.idempotency.spi.PageCursor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Writes records and action results as a table for a person or as JSON for a script. The JSON is
 * written by hand (the module has no JSON library); every string goes through {@link #json}.
 */
final class AdminOutput {
  private AdminOutput() {}

  /** The fields of a record in the order both formats show them; absent values are null. */
  static Map<String, @Nullable Object> fields(RecordView v) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    m.put("scope", v.id().scope().value());
    m.put("key", v.id().key().value());
    m.put("state", v.state().name());
    m.put("fence", v.fence().value());
    m.put("leaseExpiresAt", v.leaseExpiresAt().map(Object::toString).orElse(null));
    m.put("recoveryPoint", v.recoveryPoint().map(r -> r.name()).orElse(null));
    m.put("completedAt", v.completedAt().map(Object::toString).orElse(null));
    m.put("status", v.status().isPresent() ? v.status().getAsInt() : null);
    m.put("responseBytes", v.responseBytes().isPresent() ? v.responseBytes().getAsLong() : null);
    m.put("notStoredReason", v.notStoredReason().orElse(null));
    m.put("fingerprint", v.fingerprint().hex());
    return m;
  }

  static String listJson(List<RecordView> records, Optional<PageCursor> next) {
    List<String> items = new ArrayList<>();
    for (RecordView v : records) {
      items.add(object(fields(v)));
    }
    return "{\"records\":["
        + String.join(",", items)
        + "],\"next\":"
        + next.map(c -> json(c.value())).orElse("null")
        + "}";
  }

  static String listTable(List<RecordView> records, Optional<PageCursor> next) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"SCOPE", "KEY", "STATE", "FENCE", "LEASE_EXPIRES_AT", "RECOVERY_POINT"});
    for (RecordView v : records) {
      Map<String, @Nullable Object> f = fields(v);
      rows.add(
          new String[] {
            cell(f.get("scope")),
            cell(f.get("key")),
            cell(f.get("state")),
            cell(f.get("fence")),
            cell(f.get("leaseExpiresAt")),
            cell(f.get("recoveryPoint"))
          });
    }
    StringBuilder out = new StringBuilder(table(rows));
    out.append(records.size()).append(records.size() == 1 ? " record" : " records");
    next.ifPresent(c -> out.append("; next page: --after ").append(c.value()));
    return out.append('\n').toString();
  }

  static String showJson(RecordView v) {
    return object(fields(v));
  }

  static String showTable(RecordView v) {
    List<String[]> rows = new ArrayList<>();
    fields(v).forEach((k, val) -> rows.add(new String[] {k, cell(val)}));
    return table(rows);
  }

  static String resultJson(KeyStoreAdmin.Result r, boolean dryRun) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>();
    m.put("scope", r.id().scope().value());
    m.put("key", r.id().key().value());
    m.put("status", r.status().name());
    m.put("dryRun", dryRun);
    m.put("detail", r.detail());
    return object(m);
  }

  static String resultTable(KeyStoreAdmin.Result r, boolean dryRun) {
    return (dryRun ? "dry run: would be " : "") + r.status() + ": " + oneLine(r.detail()) + "\n";
  }

  /**
   * A JSON string literal of {@code s}: quotes, backslashes and every control character escaped,
   * and U+2028/U+2029 too, so that the output is safe in JavaScript as well.
   */
  static String json(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  private static String object(Map<String, @Nullable Object> m) {
    List<String> members = new ArrayList<>();
    m.forEach((k, v) -> members.add(json(k) + ":" + value(v)));
    return "{" + String.join(",", members) + "}";
  }

  private static String value(@Nullable Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    return json(v.toString());
  }

  /**
   * A table cell: a scope or key may hold any character, and a line break or escape sequence in it
   * must not forge rows or move the terminal's cursor, so control characters are shown escaped.
   */
  private static String cell(@Nullable Object v) {
    return v == null ? "-" : oneLine(v.toString());
  }

  private static String oneLine(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static String table(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]).append(" ".repeat(width[i] - row[i].length() + 2));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
