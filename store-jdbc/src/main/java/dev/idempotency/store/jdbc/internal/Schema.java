package dev.idempotency.store.jdbc.internal;

import dev.idempotency.KeyStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The store's schema at start-up: the shipped DDL, creating it, and checking that it is there.
 * Stateless.
 */
public final class Schema {
  private Schema() {}

  /**
   * The DDL in the class-path resource {@code resource}, written for the default table name,
   * rendered for {@code names}.
   *
   * @throws KeyStoreException if the resource is missing or cannot be read
   */
  public static String ddl(String resource, Names names) {
    try (InputStream in = Schema.class.getResourceAsStream("/" + resource)) {
      if (in == null) {
        throw new KeyStoreException("schema resource " + resource + " is missing from the jar");
      }
      return names.render(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new KeyStoreException("cannot read " + resource + ": " + e, e);
    }
  }

  /**
   * Runs the statements of {@code ddl} one by one, and commits them unless {@code c} commits each.
   */
  public static void create(Connection c, String ddl) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    try (Statement s = c.createStatement()) {
      for (String statement : statements(ddl)) {
        s.execute(statement);
      }
      if (!autoCommit) {
        c.commit();
      }
    }
  }

  /**
   * Runs the dialect's {@linkplain SqlDialect#validationStatements() validation statements}, then
   * rolls back unless {@code c} commits each.
   *
   * @throws KeyStoreException if the table, a column or the sequence is missing; its message says
   *     how to fix it
   */
  public static void validate(Connection c, SqlDialect sql, String table) throws SQLException {
    for (String check : sql.validationStatements()) {
      try (Statement s = c.createStatement()) {
        s.execute(check);
      } catch (SQLException e) {
        if (!c.getAutoCommit()) {
          Transactions.rollbackQuietly(c, e);
        }
        if (SqlErrors.isSchemaProblem(e)) {
          throw new KeyStoreException(SqlErrors.schemaMessage(table, e), e);
        }
        throw e;
      }
    }
    if (!c.getAutoCommit()) {
      c.rollback();
    }
  }

  /**
   * The statements of a DDL script: its lines without the {@code --} comment lines, split at each
   * {@code ;}. Enough for the shipped DDL, which has no {@code ;} inside a literal, a body or a
   * comment at the end of a line.
   */
  static List<String> statements(String script) {
    StringBuilder sb = new StringBuilder();
    for (String line : script.split("\n", -1)) {
      if (!line.strip().startsWith("--")) {
        sb.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String s : sb.toString().split(";", -1)) {
      if (!s.isBlank()) {
        out.add(s.strip());
      }
    }
    return out;
  }
}
