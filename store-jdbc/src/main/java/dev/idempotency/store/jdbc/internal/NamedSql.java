package dev.idempotency.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQL text with {@code :name} parameters ({@link Param}s), turned into positional {@code ?}s once
 * and bound from a call's {@link ParamValues}. A parameter may occur several times; a list
 * parameter's element is {@code :name[i]}. Immutable and thread-safe.
 */
final class NamedSql {
  private final String text;
  private final Param[] params;

  /** The element of each list parameter; 0 for the others. */
  private final int[] indexes;

  private NamedSql(String text, Param[] params, int[] indexes) {
    this.text = text;
    this.params = params;
    this.indexes = indexes;
  }

  /**
   * Parses {@code sql}; a parameter is a colon followed by a letter and word characters, outside
   * quotes and not after another colon (PostgreSQL's {@code ::} cast), optionally followed by
   * {@code [index]}.
   *
   * @throws IllegalArgumentException if it names a parameter that is not a {@link Param}
   */
  static NamedSql parse(String sql) {
    StringBuilder out = new StringBuilder(sql.length());
    List<Param> params = new ArrayList<>();
    List<Integer> indexes = new ArrayList<>();
    boolean quoted = false;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
      }
      if (!quoted
          && c == ':'
          && i + 1 < sql.length()
          && Character.isLetter(sql.charAt(i + 1))
          && (i == 0 || sql.charAt(i - 1) != ':')) {
        int j = i + 1;
        while (j < sql.length()
            && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
          j++;
        }
        params.add(Param.named(sql.substring(i + 1, j)));
        int index = 0;
        if (j < sql.length() && sql.charAt(j) == '[') {
          int close = sql.indexOf(']', j);
          index = Integer.parseInt(sql.substring(j + 1, close));
          j = close + 1;
        }
        indexes.add(index);
        out.append('?');
        i = j - 1;
      } else {
        out.append(c);
      }
    }
    return new NamedSql(
        out.toString(),
        params.toArray(Param[]::new),
        indexes.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The positional SQL text. */
  String text() {
    return text;
  }

  /** Prepares the statement and binds {@code values}. */
  PreparedStatement prepare(Connection c, ParamValues values) throws SQLException {
    return bind(c.prepareStatement(text), values);
  }

  /** Prepares the statement asking for generated keys, and binds {@code values}. */
  PreparedStatement prepareWithKeys(Connection c, ParamValues values) throws SQLException {
    return bind(c.prepareStatement(text, Statement.RETURN_GENERATED_KEYS), values);
  }

  /**
   * Binds {@code values} to a statement prepared from {@link #text()}; closes it if binding fails.
   */
  PreparedStatement bind(PreparedStatement ps, ParamValues values) throws SQLException {
    try {
      for (int i = 0; i < params.length; i++) {
        values.bind(ps, i + 1, params[i], indexes[i]);
      }
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }
}
