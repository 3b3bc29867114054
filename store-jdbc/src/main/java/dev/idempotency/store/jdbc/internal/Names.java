package dev.idempotency.store.jdbc.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of the store's objects, derived from one table name: the table, its fence sequence
 * ({@code <table>_fence_seq}) and its index and constraints ({@code <base>_pk}, {@code
 * <base>_retain_idx}).
 *
 * @param table the table name as written in SQL, optionally schema-qualified
 * @param base the table name without its schema
 */
public record Names(String table, String base) {
  /** The table name the shipped DDL is written for. */
  public static final String DEFAULT_TABLE = "idempotency_records";

  private static final Pattern NAME =
      Pattern.compile("(?:[A-Za-z_][A-Za-z0-9_]{0,62}\\.)?([A-Za-z_][A-Za-z0-9_]{0,47})");

  /** The default name, with the suffix of a constraint or index name (group 1) when it is one. */
  private static final Pattern DEFAULT_NAME =
      Pattern.compile(DEFAULT_TABLE + "(?:_(pk|state_ck|retain_idx)\\b)?");

  /**
   * Validates and splits a table name.
   *
   * @throws IllegalArgumentException if it is not {@code [schema.]name} of letters, digits and
   *     underscores
   */
  public static Names of(String table) {
    Matcher m = NAME.matcher(table);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "tableName must be [schema.]name of letters, digits and underscores, the name "
              + "at most 48 characters, but was \""
              + table
              + "\"");
    }
    return new Names(table, m.group(1));
  }

  /** The fence sequence (PostgreSQL, H2). */
  public String sequence() {
    return table + "_fence_seq";
  }

  /** Rewrites DDL written for {@value #DEFAULT_TABLE} for this table. */
  public String render(String ddl) {
    // One pass: constraint and index names take the base (they cannot be schema-qualified),
    // everything else, the table and its sequence, the table as given. Two passes would rename
    // again inside names already rendered when the table's own name contains the default one
    // (idempotency_records2_pk becoming idempotency_records22_pk).
    return DEFAULT_NAME
        .matcher(ddl)
        .replaceAll(
            m -> Matcher.quoteReplacement(m.group(1) != null ? base + "_" + m.group(1) : table));
  }
}
