package dev.idempotency.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code idempotency.jdbc.*} properties: the JDBC store built from the application's
 * DataSource. A group of {@link IdempotencyProperties}.
 */
public class IdempotencyJdbcProperties {
  /** The defaults. */
  public IdempotencyJdbcProperties() {}

  /**
   * Let the store create its table and sequence at start-up (CREATE ... IF NOT EXISTS). Off:
   * production schemas come from a migration (classpath:db/idempotency/{vendor} for Flyway).
   */
  private boolean createSchemaIfMissing;

  /** The table the shipped migrations create. */
  public static final String DEFAULT_TABLE_NAME = "idempotency_records";

  /** The records table, optionally schema-qualified. */
  private String tableName = DEFAULT_TABLE_NAME;

  /** The query timeout of the store's statements, whole seconds; well below the lease. */
  private Duration statementTimeout = Duration.ofSeconds(5);

  public boolean isCreateSchemaIfMissing() {
    return createSchemaIfMissing;
  }

  public void setCreateSchemaIfMissing(boolean createSchemaIfMissing) {
    this.createSchemaIfMissing = createSchemaIfMissing;
  }

  public String getTableName() {
    return tableName;
  }

  public void setTableName(String tableName) {
    this.tableName = tableName;
  }

  public Duration getStatementTimeout() {
    return statementTimeout;
  }

  public void setStatementTimeout(Duration statementTimeout) {
    this.statementTimeout = statementTimeout;
  }
}
