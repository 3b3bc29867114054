package dev.idempotency.store.jdbc;

import dev.idempotency.KeyStoreException;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL dialects the JDBC store speaks. The builder picks one from the connection's {@link
 * DatabaseMetaData#getDatabaseProductName() product name} unless one is named explicitly.
 */
public enum Dialect {
  /**
   * PostgreSQL 15 and later: one statement of three CTEs (the existing row, {@code INSERT … ON
   * CONFLICT DO NOTHING} when there is none, a conditional {@code UPDATE} when it is claimable);
   * the first attempt reads the existing row without a lock, a later attempt reads it {@code FOR
   * UPDATE}. A sequence for fences.
   */
  POSTGRESQL("postgresql"),
  /**
   * MySQL 8 and MariaDB 10.11 (either driver): {@code INSERT … ON DUPLICATE KEY UPDATE} with
   * conditional assignments; fences from the database clock in microseconds, floored by the
   * record's previous fence.
   */
  MYSQL("mysql"),
  /**
   * H2 2.x, in any compatibility mode: {@code SELECT … FROM FINAL TABLE (MERGE INTO … USING …)}, a
   * sequence for fences.
   */
  H2("h2");

  private final String directory;

  Dialect(String directory) {
    this.directory = directory;
  }

  /**
   * The class-path location of this dialect's schema, version 1, written for the default table name
   * {@code idempotency_records}: plain DDL to hand to Flyway or Liquibase.
   *
   * @return a resource name such as {@code
   *     dev/idempotency/store/jdbc/schema/postgresql/V1__idempotency_records.sql}
   */
  public String schemaResource() {
    return "dev/idempotency/store/jdbc/schema/" + directory + "/V1__idempotency_records.sql";
  }

  /**
   * Picks the dialect for a database product.
   *
   * @param metaData the connection's metadata
   * @return the dialect
   * @throws SQLException if the metadata cannot be read
   * @throws KeyStoreException if the product is not supported
   */
  public static Dialect detect(DatabaseMetaData metaData) throws SQLException {
    String product = metaData.getDatabaseProductName();
    String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (p.contains("postgresql")) {
      return POSTGRESQL;
    }
    if (p.contains("mysql") || p.contains("mariadb")) {
      return MYSQL;
    }
    if (p.equals("h2")) {
      return H2;
    }
    throw new KeyStoreException(
        "The JDBC key store does not support the database \""
            + product
            + "\". Supported: "
            + "PostgreSQL 15+, MySQL 8, MariaDB 10.11, H2 2.x. If the database speaks one of these dialects, name it "
            + "with JdbcKeyStore.builder(dataSource).dialect(Dialect.POSTGRESQL) (or MYSQL, H2).");
  }
}
