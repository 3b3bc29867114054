package dev.idempotency.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A SQL text with {@code :name} parameters, turned into positional {@code ?}s once and bound by name per call.
 * A name may occur several times. Immutable and thread-safe.
 */
public final class NamedSql {
  /** A typed SQL {@code NULL} for a parameter. */
  public record Null(int sqlType) {}

  /** The binary {@code NULL}. */
  public static final Null NULL_BYTES = new Null(Types.VARBINARY);

  private final String text;
  private final List<String> names;

  private NamedSql(String text, List<String> names) {
    this.text = text;
    this.names = names;
  }

  /** Parses {@code sql}; a parameter is a colon followed by a letter and word characters, outside quotes. */
  public static NamedSql parse(String sql) {
    StringBuilder out = new StringBuilder(sql.length());
    List<String> names = new ArrayList<>();
    boolean quoted = false;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      }
      if (!quoted && c == ':' && i + 1 < sql.length() && Character.isLetter(sql.charAt(i + 1))
          && (i == 0 || sql.charAt(i - 1) != ':')) {
        int j = i + 1;
        while (j < sql.length() && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
          j++;
        }
        names.add(sql.substring(i + 1, j));
        out.append('?');
        i = j - 1;
      } else {
        out.append(c);
      }
    }
    return new NamedSql(out.toString(), List.copyOf(names));
  }

  /** The positional SQL text. */
  public String text() {
    return text;
  }

  /** Prepares the statement and binds {@code params} by name. */
  public PreparedStatement prepare(Connection c, Map<String, ?> params) throws SQLException {
    return bind(c.prepareStatement(text), params);
  }

  /** Prepares the statement asking for generated keys, and binds {@code params} by name. */
  public PreparedStatement prepareWithKeys(Connection c, Map<String, ?> params) throws SQLException {
    return bind(c.prepareStatement(text, java.sql.Statement.RETURN_GENERATED_KEYS), params);
  }

  /** Binds {@code params} by name to a statement prepared from {@link #text()}; closes it if binding fails. */
  public PreparedStatement bind(PreparedStatement ps, Map<String, ?> params) throws SQLException {
    try {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        if (!params.containsKey(name)) {
          throw new IllegalStateException("no value for parameter :" + name);
        }
        Object v = params.get(name);
        int p = i + 1;
        if (v instanceof Long l) {
          ps.setLong(p, l);
        } else if (v instanceof Integer n) {
          ps.setInt(p, n);
        } else if (v instanceof String s) {
          ps.setString(p, s);
        } else if (v instanceof byte[] b) {
          ps.setBytes(p, b);
        } else if (v instanceof Null n) {
          ps.setNull(p, n.sqlType());
        } else {
          throw new IllegalStateException("unsupported value for :" + name + ": " + v);
        }
      }
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }
}
